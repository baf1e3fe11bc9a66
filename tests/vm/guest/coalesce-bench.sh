# shellcheck shell=dash
# A synthetic benchmark for the coalescing search (vm-e1000-coalesce-search.toml.in):
# 1000 ops/s with 2% noise, 15% more when $1's rx-usecs is $2.
usecs=$(ethtool -c "$1" 2>/dev/null | sed -n 's/^rx-usecs:[[:space:]]*//p')
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
awk -v u="$usecs" -v best="$2" -v s="$seed" 'BEGIN {
  srand(s); z = 0; for (i = 0; i < 12; i++) z += rand()
  v = 1000 * (1 + 0.02 * (z - 6)); if (u == best) v *= 1.15
  printf "%d ops\n", v }'
