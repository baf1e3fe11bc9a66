# tuner report --html on real run reports, loaded in headless Chromium:
#  1. Two real applies with the verify loop in a private network namespace (lib.sh), as
#     verify_loop_test.sh runs them: TCP crippled by tiny buffers, a profile restoring
#     them (kept), then one shrinking them (rolled back); each report a node's file.
#     With nftables, a third: the buffers plus a TTL that nftables drops 1% of, bisected
#     with a retransmit guard (the TTL found, the buffers kept: steps with their trials).
#  2. A third node whose file name is markup ("<script>", quotes): its name must show as
#     text. tuner report --html renders the three as a fleet.
#  3. Chromium (--headless --dump-dom) loads the page: no console message at all (a
#     script error, a blocked fetch, a CSP violation all log one; the check is proved on
#     a page that throws), no <script> element, and per node the group's card with a
#     trials plot holding both arms' marks, one per trial, and an effects plot.
#  4. A screenshot is taken (HTML_REPORT_KEEP=DIR keeps the page and it, for docs/).
# Skips (77) without root, network namespaces or chromium (packaging/install-deps.sh --test).
source "$(dirname "$0")/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "chromium is not installed (apt-get install chromium)"
command -v python3 >/dev/null || skip "python3 is not installed"
enter_netns "$@"
set -e
ip link set lo up

tcp_buffers_init
profile() {
  local f="$WORK/$1.toml"
  { printf '[profile]\nname = "%s"\n\n[sysctl]\n"%s" = "%s"\n"%s" = "%s"\n' "$1" $rmem "$2" $wmem "$3"
    printf '%s\n' "${SYSCTL:-}"
    printf '\n[verify]\nbench = ["tcp-short"]\nmin_effect = 0.05\nmax_trials = 10\n'
    printf '%s\n' "${EXTRA:-}"
    printf '\n[bench.tcp-short]\nkind = "tcp"\nduration = "300ms"\nrr_duration = "100ms"\n'
  } > "$f"
  echo "$f"
}
mkdir -p "$WORK/fleet"

note "1. two real runs: large buffers on crippled TCP (kept), tiny ones (rolled back)"
cripple
expect_rc 0 t apply --profile "$(profile grow "4096 131072 6291456" "4096 16384 4194304")" \
  --yes --json --report "$WORK/fleet/node-a.run.json"
expect_rc 0 t rollback --last
uncripple
expect_rc 0 t apply --profile "$(profile shrink "4096 4096 4096" "4096 4096 4096")" \
  --yes --json --report "$WORK/fleet/node-b.run.json"
uncripple
nodes="a b"
if command -v nft >/dev/null; then
  # As verify_loop_test.sh 3b: 1% of TTL-63 data segments dropped on input.
  nft add table inet tunerhtml
  nft add chain inet tunerhtml in '{ type filter hook input priority 0; }'
  nft add rule inet tunerhtml in ip ttl 63 tcp flags '&' '(syn|fin|rst)' == 0 numgen random mod 100 '<' 1 drop
  cripple
  lossy=$(SYSCTL='"net.ipv4.ip_default_ttl" = "63"' EXTRA='bisect = true
guards = [{ metric = "tcp_retrans_pct", max_increase = 2.0 }]' \
    profile lossy "4096 131072 6291456" "4096 16384 4194304")
  expect_rc 0 t apply --profile "$lossy" --yes --json --report "$WORK/fleet/node-c.run.json"
  expect_rc 0 t rollback --last
  nft delete table inet tunerhtml
  uncripple
  jq -e '.groups[0].stats.bisect.steps | length > 0 and all(.[]; (.values | length) == (.order | length))' \
    "$WORK/fleet/node-c.run.json" >/dev/null || fail "node-c: bisect steps without values: $(jq -c '.groups[0].stats.bisect' "$WORK/fleet/node-c.run.json")"
  nodes="a b c"
  note "   c: $(jq -c '.groups[0] | {decision, outcome: .stats.outcome, steps: [.stats.bisect.steps[] | {knobs, outcome}]}' "$WORK/fleet/node-c.run.json")"
else
  note "   (no nft: no bisected node)"
fi
for n in $nodes; do
  jq -e '.groups[0].stats | (.values | length) > 0 and (.values | length) == (.order | length)
         and (.values | length) == .trials.baseline + .trials.candidate and .min_effect == 0.05' \
    "$WORK/fleet/node-$n.run.json" >/dev/null ||
    fail "node-$n: no per-trial values: $(jq -c '.groups[0].stats | {order, values, min_effect}' "$WORK/fleet/node-$n.run.json")"
done
note "   a: $(jq -c '.groups[0] | {decision, effect: .stats.effect, order: .stats.order}' "$WORK/fleet/node-a.run.json")"
note "   b: $(jq -c '.groups[0] | {decision, effect: .stats.effect, order: .stats.order}' "$WORK/fleet/node-b.run.json")"

note "2. a node named with markup; the fleet as one page"
evil='evil"<script>alert(1)<!--'\''x'
cp "$WORK/fleet/node-a.run.json" "$WORK/fleet/$evil.run.json"
expect_rc 0 t report --html "$WORK/report.html" "$WORK/fleet"
grep -q "$(( $(wc -w <<<"$nodes") + 1 )) nodes" <<<"$OUT" || fail "the text summary is not printed beside the page: $OUT"
[ -s "$WORK/report.html" ] || fail "no page written"
! grep -qi '<script' "$WORK/report.html" || fail "the page holds a <script>: $(grep -io '.\{60\}<script.\{60\}' "$WORK/report.html" | head -3)"
# What changed and why, in words: the setting with its values, the profile and its digest.
jq -e '.profile_digest | test("^fnv1a64:[0-9a-f]{16}$")' "$WORK/fleet/node-a.run.json" >/dev/null ||
  fail "node-a: no profile digest: $(jq -c '{profiles, profile_digest}' "$WORK/fleet/node-a.run.json")"
grep -qE "<code>sysctl:$rmem</code></td><td>4096 4096 4096</td><td>4096 131072 6291456</td>" \
  "$WORK/report.html" || fail "the page does not name $rmem with before and after: $(grep -o '.\{80\}tcp_rmem.\{120\}' "$WORK/report.html" | head -3)"
grep -q "profile <code>grow, digest fnv1a64:" "$WORK/report.html" || fail "the page does not name the profile and its digest"
grep -qE 'class="why">(kept|rolled back)[^<]*: ' "$WORK/report.html" || fail "the page does not say why in words"
expect_rc 2 t report --html "$WORK" "$WORK/fleet"  # a directory: refused before anything

note "3. headless Chromium: no console message, the plots in the DOM"
chrome() {
  HOME="$WORK" timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$WORK/chrome" --enable-logging=stderr --v=0 "$@"
}
# The console check must see what it looks for: a page that throws logs "Uncaught".
printf '<!DOCTYPE html><p>x</p><script>throw new Error("selftest")</script>' > "$WORK/throws.html"
chrome --dump-dom "file://$WORK/throws.html" >/dev/null 2>"$WORK/throws.log" || true
grep -q 'CONSOLE.*Uncaught Error: selftest' "$WORK/throws.log" ||
  skip "this chromium does not log console messages on stderr: $(tail -3 "$WORK/throws.log")"
chrome --dump-dom "file://$WORK/report.html" >"$WORK/dom.html" 2>"$WORK/chrome.log" ||
  fail "chromium failed: $(tail -5 "$WORK/chrome.log")"
! grep -E 'CONSOLE|Uncaught' "$WORK/chrome.log" || fail "console messages while loading the page"
python3 - "$WORK/dom.html" "$evil" $(printf 'node-%s ' $nodes) <<'PY' || fail "the DOM is not what the page should be"
import sys
from html.parser import HTMLParser

class Dom(HTMLParser):
    """Per card (data-node): its plots, each with its trials and marks per arm."""
    def __init__(self):
        super().__init__()
        self.cards, self.scripts, self.card, self.plot, self.arm = {}, 0, None, None, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'script':
            self.scripts += 1
        if tag == 'figure' and 'card' in a.get('class', ''):
            self.card = self.cards.setdefault(a['data-node'], {'trials': [], 'effects': 0})
        if self.card is None:
            return
        if tag == 'svg' and a.get('class') == 'effects':
            self.card['effects'] += 1
        if tag == 'svg' and a.get('class') == 'trials':
            self.plot = {'n': int(a['data-trials']), 'arms': {}, 'marks': {}}
            self.card['trials'].append(self.plot)
        if tag == 'g' and 'data-arm' in a:
            self.arm = a['data-arm']
            self.plot['arms'][self.arm] = int(a['data-count'])
        if tag in ('circle', 'rect') and 'data-i' in a:
            self.plot['marks'][self.arm] = self.plot['marks'].get(self.arm, 0) + 1
    def handle_endtag(self, tag):
        if tag == 'figure':
            self.card = None

d = Dom()
d.feed(open(sys.argv[1], encoding='utf-8').read())
ok = True
def need(cond, what):
    global ok
    if not cond:
        print('FAIL:', what, file=sys.stderr)
        ok = False
need(d.scripts == 0, f'{d.scripts} <script> elements in the DOM')
need(set(d.cards) == set(sys.argv[2:]), f'cards of nodes {sorted(d.cards)}, not {sorted(sys.argv[2:])}')
for node, c in sorted(d.cards.items()):
    need(c['effects'] == 1 and c['trials'], f'{node}: plots {c}')
    for p in c['trials']:
        need(p['arms'].get('baseline', 0) > 0 and p['arms'].get('candidate', 0) > 0, f'{node}: arms {p}')
        need(p['marks'] == p['arms'], f'{node}: not one mark per trial {p}')
        need(sum(p['arms'].values()) == p['n'], f'{node}: trials {p}')
need(len(d.cards.get('node-c', {'trials': [0, 0]})['trials']) >= 2, 'node-c: no plot of a bisect step')
print('   DOM:', {n: [p['arms'] for p in c['trials']] for n, c in sorted(d.cards.items())})
sys.exit(0 if ok else 1)
PY

note "4. a screenshot"
chrome --hide-scrollbars --window-size=1280,1400 --screenshot="$WORK/report.png" \
  "file://$WORK/report.html" >/dev/null 2>"$WORK/shot.log" || fail "no screenshot: $(tail -3 "$WORK/shot.log")"
[ "$(head -c 8 "$WORK/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "the screenshot is not a PNG"
if [ -n "${HTML_REPORT_KEEP:-}" ]; then
  mkdir -p "$HTML_REPORT_KEEP" && cp "$WORK/report.html" "$WORK/report.png" "$WORK"/fleet/node-*.run.json "$HTML_REPORT_KEEP/"
fi
echo "PASS: html_report"
