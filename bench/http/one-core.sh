#!/usr/bin/env bash
# Nexus against Workerman with wrk and both servers on ONE core (taskset), in turn.
#
#   bench/http/one-core.sh [CONNECTIONS] [ROUNDS] [SECONDS] [CORE]
#
# Why: on this 2-core VM `wrk -t1` saturates its own core at about 145K requests/s, and Nexus,
# Workerman and the bare loop all reach that ceiling with a core each (make bench-http), so the
# ratio there says "tied" and moves with noise. With wrk and the server sharing one core, each
# request costs the core the client's work plus the server's (user and system), so the server
# that needs less CPU per request serves more: RPS = 1 / (client + server time per request).
# The servers run one at a time; the rounds alternate them. Prints every run and the ratio of
# the medians per path. Needs wrk and taskset (util-linux). NEXUS_PEERS_DIR: where the peers are.
set -euo pipefail

connections=${1:-100}
rounds=${2:-3}
seconds=${3:-4}
core=${4:-1}
root=$(cd "$(dirname "$0")/../.." && pwd)
peers=${NEXUS_PEERS_DIR:-$root/../shared/peers}
if [[ ! -f "$peers/workerman_server.php" ]]; then
    echo "one-core: no $peers/workerman_server.php (set NEXUS_PEERS_DIR)" >&2
    exit 2
fi
for tool in wrk taskset; do
    command -v "$tool" >/dev/null || { echo "one-core: $tool is missing" >&2; exit 2; }
done
jit=(-d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M)
free_port() { php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];'; }
nexus_port=$(free_port)
workerman_port=$(free_port)
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    pkill -f "workerman_server.php start $workerman_port" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

taskset -c "$core" php "${jit[@]}" "$root/bin/nexus" serve --host=127.0.0.1 "--port=$nexus_port" --workers=1 --admin=127.0.0.1:0 >"$work/nexus.log" 2>&1 &
pids+=($!)
taskset -c "$core" php "${jit[@]}" "$peers/workerman_server.php" start "$workerman_port" >"$work/workerman.log" 2>&1 &
pids+=($!)
for port in "$nexus_port" "$workerman_port"; do
    for _ in $(seq 100); do
        php -r "exit(@fsockopen('127.0.0.1', $port) ? 0 : 1);" && break
        sleep 0.1
    done
done

rps() { # port path -> requests/s of one wrk run on the same core
    taskset -c "$core" wrk -t1 "-c$connections" "-d${seconds}s" "http://127.0.0.1:$1$2" | awk '/Requests\/sec/ {print $2}'
}
for path in / /hello/wrk; do
    for port in "$nexus_port" "$workerman_port"; do rps "$port" "$path" >/dev/null; done # warm-up
    nexus=() workerman=()
    for round in $(seq "$rounds"); do
        nexus+=("$(rps "$nexus_port" "$path")")
        workerman+=("$(rps "$workerman_port" "$path")")
        echo "one-core: $path c=$connections round $round: nexus ${nexus[-1]}, workerman ${workerman[-1]}" >&2
    done
    php -r '
        [$path, $c, $n, $w] = [$argv[1], $argv[2], explode(" ", $argv[3]), explode(" ", $argv[4])];
        $median = static function (array $v): float { sort($v); return (float) $v[intdiv(count($v), 2)]; };
        printf("GET %-11s c=%-5s nexus %8.0f  workerman %8.0f  nexus/workerman %.3fx  (medians of %d; runs: %s | %s)\n",
            $path, $c, $median($n), $median($w), $median($n) / $median($w), count($n), implode(" ", $n), implode(" ", $w));
    ' "$path" "$connections" "${nexus[*]}" "${workerman[*]}"
done
