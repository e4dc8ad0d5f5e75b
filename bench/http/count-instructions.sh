#!/usr/bin/env bash
# Instructions per request of a server under wrk, counted by callgrind with the tracing JIT on.
#
#   bench/http/count-instructions.sh nexus|workerman|bare CONNECTIONS PATH [SHORT_S LONG_S]
#
# The server runs under valgrind (callgrind, JIT code counted with --smc-check=all-non-file). After
# a warm-up run of wrk, the counters are zeroed, wrk runs SHORT_S seconds, the counters are dumped;
# the same again for LONG_S seconds. Each wrk run opens its CONNECTIONS connections afresh, so the
# difference of the two runs divided by the difference of their requests is one request in the
# steady state, without the connections' set-up and tear-down. Needs wrk and valgrind.
#
# PHP_ARGS and VG_ARGS add options to php and valgrind (e.g. PHP_ARGS="-d opcache.jit_debug=16"
# VG_ARGS=--dump-instr=yes to map the JIT's code to its traces through /tmp/perf-PID.map).
# KEEP=/tmp/x keeps the two profiles as /tmp/x.short and /tmp/x.long (callgrind_annotate).
#
# nexus:     bin/nexus serve --workers=1 --admin=127.0.0.1:0, as bench/http/run.php starts it
#            (NEXUS_ROOT=/path/to/another/checkout measures that one instead)
# bare:      bench/http/bare-loop.php, the floor: a stream_select() loop with a fixed answer
# workerman: bench/http/workerman-counted.php: ../shared/peers/workerman_server.php with two paths
#            more that zero and dump the counters (NEXUS_PEERS_DIR: where the peers are)
set -euo pipefail

server=${1:?nexus or workerman}
connections=${2:-100}
path=${3:-/}
short=${4:-4}
long=${5:-12}
root=${NEXUS_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
port=$(php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];')
work=$(mktemp -d)
jit=(-d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M ${PHP_ARGS:-})
case "$server" in
    nexus) command=(php "${jit[@]}" "$root/bin/nexus" serve --host=127.0.0.1 "--port=$port" --workers=1 --admin=127.0.0.1:0) ;;
    bare) command=(php "${jit[@]}" "$root/bench/http/bare-loop.php" "$port") ;;
    workerman) command=(php "${jit[@]}" "$root/bench/http/workerman-counted.php" start "$port") ;;
    *) echo "unknown server $server" >&2; exit 2 ;;
esac

# shellcheck disable=SC2086 # VG_ARGS: more valgrind options, split on spaces
valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file="$work/cg.%p" ${VG_ARGS:-} \
    --zero-before=PHP_GOSTInit --dump-before=PHP_JOAATInit \
    "${command[@]}" >"$work/server.log" 2>&1 &
launcher=$!
cleanup() {
    for child in $(pgrep -P "$launcher"); do kill "$child" 2>/dev/null || true; done
    kill "$launcher" 2>/dev/null || true
    wait "$launcher" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
    sleep 0.2
done
# The process that serves: Workerman's master forks its worker; Nexus with one worker serves alone.
sleep 1
pid=$(pgrep -n -P "$launcher" || echo "$launcher")

url="http://127.0.0.1:$port$path"
wrk -t1 "-c$connections" -d6s --timeout 10s "$url" >/dev/null

# Workerman's forked worker has no vgdb pipe for callgrind_control: it zeroes and dumps on request.
zero() {
    if [ "$server" = workerman ]; then curl -sf "http://127.0.0.1:$port/__zero" >/dev/null; else callgrind_control -z "$pid" >/dev/null; fi
}
dump() {
    if [ "$server" = workerman ]; then curl -sf "http://127.0.0.1:$port/__dump" >/dev/null; else callgrind_control -d "$pid" >/dev/null; fi
}

measure() {
    local seconds=$1 label=$2
    zero
    local out
    out=$(wrk -t1 "-c$connections" "-d${seconds}s" --timeout 10s "$url")
    dump
    local requests
    requests=$(echo "$out" | sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
    local file=""
    for _ in $(seq 1 100); do
        file=$(ls -t "$work" | { grep "^cg\.$pid\." || true; } | head -1)
        [ -n "$file" ] && grep -q '^totals:' "$work/$file" 2>/dev/null && break
        sleep 0.2
    done
    file="$work/$file"
    local instructions
    instructions=$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$file")
    [ -n "$instructions" ] || instructions=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$file")
    if [ -n "${KEEP:-}" ]; then cp "$file" "$KEEP.$label"; cp "/tmp/perf-$pid.map" "$KEEP.map" 2>/dev/null || true; fi
    rm -f "$file"
    echo "$requests $instructions"
}

read -r r1 i1 < <(measure "$short" short)
read -r r2 i2 < <(measure "$long" long)
php -r '
[, $server, $c, $path, $r1, $i1, $r2, $i2] = $argv;
printf("%s c=%d %s: %.0f instructions per request (%d requests in %.0fM, %d in %.0fM; each run alone: %.0f, %.0f)\n",
    $server, $c, $path, ($i2 - $i1) / ($r2 - $r1), $r1, $i1 / 1e6, $r2, $i2 / 1e6, $i1 / $r1, $i2 / $r2);
' "$server" "$connections" "$path" "$r1" "$i1" "$r2" "$i2"
