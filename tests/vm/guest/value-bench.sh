# shellcheck shell=dash
# A synthetic benchmark for the VM's value searches (vm-e1000-*-search.toml.in): 1000
# ops/s with 2% noise, 15% more when $1's $2 reads $3. $2 is rx-usecs (ethtool -c) or
# rx-ring (ethtool -g, the current RX ring size).
case $2 in
  rx-usecs) now=$(ethtool -c "$1" 2>/dev/null | sed -n 's/^rx-usecs:[[:space:]]*//p') ;;
  rx-ring) now=$(ethtool -g "$1" 2>/dev/null | awk '/^Current/ { cur = 1 } cur && /^RX:/ { print $2; exit }') ;;
  *) echo "value-bench.sh: unknown field $2" >&2; exit 2 ;;
esac
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
awk -v u="$now" -v best="$3" -v s="$seed" 'BEGIN {
  srand(s); z = 0; for (i = 0; i < 12; i++) z += rand()
  v = 1000 * (1 + 0.02 * (z - 6)); if (u == best) v *= 1.15
  printf "%d ops\n", v }'
