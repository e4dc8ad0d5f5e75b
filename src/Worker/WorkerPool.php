<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Cluster\ClusterNode;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Loop;
use Nexus\Worker\Exception\PoolStartException;
use Nexus\Worker\Internal\WorkerProcess;
use Psr\Log\LoggerInterface;

/**
 * The master process of a worker pool: it forks the workers, replaces any that die, and turns
 * signals into pool-wide actions.
 *
 * - SIGTERM / SIGINT: every worker stops gracefully (in-flight requests finish), then run() returns.
 * - SIGHUP: a graceful reload, one slot at a time: a new worker starts, and once it reports ready
 *   the old one stops accepting and drains. No request fails.
 * - A worker that dies unexpectedly is replaced at once; one that keeps dying is restarted with a
 *   growing delay (a crash loop), and both are logged.
 *
 * HTTP: the master opens one listening socket per slot, all on the same port with SO_REUSEPORT,
 * so the kernel spreads connections over them. A worker accepts on its slot's socket, inherited
 * through fork(); as the master keeps every socket open, connections that arrive while a slot's
 * worker is being replaced wait in that socket's backlog instead of being refused.
 *
 * In a cluster ($cluster) the master is also the node: it joins before it forks (its workers'
 * slots carry the node's number), passes every view to its workers and their answers back, and on
 * SIGTERM hands the node's entities off before it stops the workers, then leaves. A node that had
 * to stop hosting (fenced) and joined again as a new incarnation replaces its workers, one slot at
 * a time as in a reload.
 */
final class WorkerPool
{
    /** Room for "/worker-<slot>-<pid>-<generation>.sock" within the 108 bytes of a Unix socket path. */
    private const MAX_RUNTIME_DIR = 72;
    /** The largest stats answer a worker may send over its channel (collectStats()). */
    public const MAX_STATS_BYTES = 16 * 1024 * 1024;

    private readonly Loop $loop;
    private readonly LoggerInterface $logger;
    private readonly int $count;
    private string $runtimeDir = '';
    private string $secret = '';
    /** @var array<int, resource> listening sockets by slot */
    private array $sockets = [];
    private ?string $address = null;
    /** @var array<int, WorkerProcess> by pid */
    private array $processes = [];
    /** @var array<int, list<float>> recent crash times by slot */
    private array $crashes = [];
    /** @var array<int, int> generation counter by slot */
    private array $generations = [];
    /** @var array<int, true> slots with a restart pending */
    private array $restarting = [];
    /** @var list<int> slots waiting for a rolling replacement */
    private array $replaceQueue = [];
    private ?int $replacing = null;
    private bool $stopping = false;

    /** @var list<int> the loop's watchers of SIGCHLD/SIGTERM/SIGINT/SIGHUP, from open() on */
    private array $signalWatchers = [];

    /** Whether run() supervises: a signal before that waits in $deferredSignal. */
    private bool $running = false;

    private ?string $deferredSignal = null;
    /** This node's number in a cluster (0: none); a rejoin changes it. */
    private int $node = 0;
    /** @var array<int, int> unexpected deaths by slot, since the pool started */
    private array $restarts = [];
    private int $statsQueries = 0;
    /** @var list<\Closure(): void> run in every new worker right after fork() */
    private array $afterFork = [];
    /** @var list<\Closure(): void> run when the pool begins to stop */
    private array $onStop = [];

    public function __construct(
        private readonly WorkerMain $main,
        private readonly PoolOptions $options = new PoolOptions(),
        ?LoggerInterface $logger = null,
        private readonly ?ClusterNode $cluster = null,
    ) {
        $this->loop = $cluster->loop ?? new Loop();
        $this->logger = $logger ?? new StderrLogger();
        $this->count = $options->workerCount();
    }

    /**
     * Opens the sockets and runtime directory (and joins the cluster, for a node of one); after
     * this, address() tells where HTTP is served.
     *
     * @throws PoolStartException
     * @throws \Nexus\Cluster\Exception\ClusterException when the node cannot join (etcd unreachable, another store)
     * @throws \Nexus\Persistence\Exception\PersistenceException when the node's store cannot be read
     */
    public function open(): void
    {
        if ($this->runtimeDir !== '') {
            return;
        }
        $base = $this->options->runtimeDir ?? sys_get_temp_dir();
        self::removeStaleRuntimeDirs($base);
        $dir = \sprintf('%s/nexus-%d-%s', rtrim($base, '/'), getmypid(), bin2hex(random_bytes(4)));
        if (\strlen($dir) > self::MAX_RUNTIME_DIR) {
            throw new PoolStartException(\sprintf(
                "The pool's runtime directory %s is longer than %d bytes: the workers' Unix socket paths in it would exceed the kernel's 108-byte limit. Set PoolOptions::\$runtimeDir (or TMPDIR) to a shorter directory.",
                $dir,
                self::MAX_RUNTIME_DIR,
            ));
        }
        if (!@mkdir($dir, 0o700, true)) {
            throw new PoolStartException("Could not create the pool's runtime directory {$dir}: is {$base} writable?");
        }
        $this->runtimeDir = $dir;
        $this->secret = bin2hex(random_bytes(16));
        // The master's handlers go in first: a SIGTERM between open() and run() (or while a node
        // waits to join) must not meet the default action, which kills the master outright.
        $this->signalWatchers = [
            $this->loop->onSignal(\SIGCHLD, fn() => $this->reap()),
            $this->loop->onSignal(\SIGTERM, fn() => $this->signalled('SIGTERM')),
            $this->loop->onSignal(\SIGINT, fn() => $this->signalled('SIGINT')),
            $this->loop->onSignal(\SIGHUP, fn() => $this->signalled('SIGHUP')),
        ];
        try {
            $this->openSockets();
        } catch (\Throwable $e) {
            $this->cancelSignalWatchers();

            throw $e;
        }
    }

    /**
     * Joins the cluster (when there is one), then opens the HTTP sockets.
     */
    private function openSockets(): void
    {
        // A node joins first (it may wait for etcd): until then the HTTP port is not open, so a
        // connection is refused at once rather than left in a backlog nobody accepts from.
        $cluster = $this->cluster;
        if ($cluster !== null) {
            $cluster->open($this->count);
            $this->node = $cluster->join();
            $this->secret = $cluster->secret();
            $cluster->connect($this->broadcast(...), function (int $node): void {
                $this->node = $node;
                $this->logger->info('The node joined the cluster again as incarnation {node}: replacing its workers.', ['node' => $node]);
                for ($slot = 0; $slot < $this->count; ++$slot) {
                    $this->queueReplacement($slot);
                }
            });
        }
        if ($this->options->host !== null) {
            $port = $this->options->port;
            try {
                for ($slot = 0; $slot < $this->count; ++$slot) {
                    $this->sockets[$slot] = $this->listen($this->options->host, $port);
                    if ($slot === 0) {
                        $name = (string) stream_socket_get_name($this->sockets[0], false);
                        $port = (int) substr($name, (int) strrpos($name, ':') + 1);
                        $this->address = 'tcp://' . $name;
                    }
                }
            } catch (PoolStartException $e) {
                // A member that will never serve must not stay in the view until its lease expires.
                try {
                    $cluster?->revoke()->await();
                } catch (\Throwable) {
                    // revoke() logged it; the lease expires by itself
                }

                throw $e;
            }
        }
    }

    /**
     * Sends $line to every worker that runs with node number $node.
     */
    private function broadcast(string $line, int $node): void
    {
        foreach ($this->processes as $process) {
            if ($process->node === $node && !$process->retiring) {
                $this->tell($process, $line);
            }
        }
    }

    private function tell(WorkerProcess $process, string $line): void
    {
        // A line is small next to the socket's buffer; blocking for it keeps it whole.
        stream_set_blocking($process->control, true);
        @fwrite($process->control, $line . "\n");
        stream_set_blocking($process->control, false);
    }

    /**
     * tcp://host:port that the workers accept on (the real port when port 0 was asked for).
     */
    public function address(): ?string
    {
        return $this->address;
    }

    public function workerCount(): int
    {
        return $this->count;
    }

    /**
     * Forks the workers and supervises them until SIGTERM or SIGINT has stopped them all.
     *
     * @return int the exit code for the master
     */
    public function run(): int
    {
        $this->open();
        $this->running = true;
        for ($slot = 0; $slot < $this->count; ++$slot) {
            $this->spawn($slot);
        }
        $this->logger->info('Worker pool started: {count} workers{address}.', [
            'count' => $this->count,
            'address' => $this->address === null ? '' : ' on ' . $this->address,
        ]);
        if ($this->deferredSignal === 'SIGTERM' || $this->deferredSignal === 'SIGINT') {
            $this->stop($this->deferredSignal);
        }
        while (!$this->stopping || $this->processes !== []) {
            $this->loop->tick();
        }
        $this->cancelSignalWatchers();
        if ($this->cluster !== null) {
            try {
                $this->cluster->revoke()->await();
            } catch (\Throwable $e) {
                $this->logger->warning('Leaving the cluster failed: {error}', ['error' => $e->getMessage()]);
            }
        }
        $this->cleanUp();
        $this->logger->info('Worker pool stopped.');

        return 0;
    }

    /**
     * The master's loop: run more on it (an admin listener) before run().
     */
    public function loop(): Loop
    {
        return $this->loop;
    }

    /**
     * Runs $callback in every worker process right after fork(), before the worker's code: close
     * there what the master opened for itself (an admin listener's socket). It must not touch
     * the master's loop.
     *
     * @param \Closure(): void $callback
     */
    public function afterFork(\Closure $callback): void
    {
        $this->afterFork[] = $callback;
    }

    /**
     * Runs $callback in the master when the pool begins to stop (SIGTERM, SIGINT).
     *
     * @param \Closure(): void $callback
     */
    public function onStop(\Closure $callback): void
    {
        $this->onStop[] = $callback;
    }

    /**
     * One row per slot: the worker serving it now (the newest that is not retiring), whether it
     * reported ready, and how often the slot's worker died unexpectedly. pid 0 when the slot has
     * no worker at the moment (between a crash and its restart).
     *
     * @return list<array{slot: int, pid: int, ready: bool, generation: int, startedAt: float, restarts: int}>
     */
    public function workerStates(): array
    {
        $rows = [];
        for ($slot = 0; $slot < $this->count; ++$slot) {
            $rows[$slot] = ['slot' => $slot, 'pid' => 0, 'ready' => false, 'generation' => 0, 'startedAt' => 0.0, 'restarts' => $this->restarts[$slot] ?? 0];
        }
        foreach ($this->processes as $process) {
            $row = $rows[$process->slot] ?? null;
            if ($row === null || $process->retiring || $process->generation < $row['generation'] || ($row['ready'] && !$process->ready)) {
                continue;
            }
            $rows[$process->slot] = ['slot' => $process->slot, 'pid' => $process->pid, 'ready' => $process->ready, 'generation' => $process->generation, 'startedAt' => $process->startedAt, 'restarts' => $row['restarts']];
        }

        return array_values($rows);
    }

    /**
     * Asks every ready worker for its stats (WorkerContext::answerStats()) and calls $done once
     * with the answers by slot: the payload, or null for a worker that did not answer within
     * $timeout seconds (or has none). One stuck worker costs at most $timeout, never a wedge.
     * $question is one word ('metrics', 'checks') passed to the worker's provider.
     *
     * @param \Closure(array<int, string|null>): void $done
     */
    public function collectStats(string $question, float $timeout, \Closure $done): void
    {
        if (preg_match('/^[a-z]{1,16}$/', $question) !== 1) {
            throw new \InvalidArgumentException("A stats question is one lowercase word, got '{$question}'.");
        }
        $answers = [];
        $pending = 0;
        $finished = false;
        /** @var int|null $timer set once the queries are sent */
        $timer = null;
        $finish = function () use (&$answers, &$finished, &$timer, $done): void {
            if ($finished) {
                return;
            }
            $finished = true;
            if (\is_int($timer)) {
                $this->loop->cancel($timer);
            }
            ksort($answers);
            $done($answers);
        };
        $id = ++$this->statsQueries;
        foreach ($this->workerStates() as $state) {
            $answers[$state['slot']] = null;
            $process = $this->processes[$state['pid']] ?? null;
            if ($process === null || !$process->ready || $process->controlWatcher === null) {
                continue;
            }
            if (@fwrite($process->control, "stats {$id} {$question}\n") !== \strlen("stats {$id} {$question}\n")) {
                continue;
            }
            ++$pending;
            $slot = $process->slot;
            $process->statsWaiters[$id] = static function (?string $payload) use (&$answers, &$pending, $slot, $finish): void {
                $answers[$slot] = $payload;
                if (--$pending === 0) {
                    $finish();
                }
            };
        }
        if ($pending === 0) {
            $finish();

            return;
        }
        $timer = $this->loop->delay($timeout, function () use ($id, $finish): void {
            foreach ($this->processes as $process) {
                unset($process->statsWaiters[$id]);
            }
            $finish();
        });
        $this->loop->unreference($timer);
    }

    /**
     * @return list<int> the pids of the workers alive now
     */
    public function pids(): array
    {
        return array_keys($this->processes);
    }

    /**
     * @return resource
     */
    private function listen(string $host, int $port): mixed
    {
        $address = str_contains($host, ':') && !str_starts_with($host, '[') ? "[{$host}]" : $host;
        $context = stream_context_create(['socket' => ['so_reuseport' => true, 'backlog' => 511, 'tcp_nodelay' => true]]);
        $errno = 0;
        $errstr = '';
        $socket = @stream_socket_server("tcp://{$address}:{$port}", $errno, $errstr, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, $context);
        if ($socket === false) {
            throw new PoolStartException("Could not listen on {$address}:{$port}: {$errstr}; is the port in use by another program?");
        }

        return $socket;
    }

    private function spawn(int $slot): void
    {
        unset($this->restarting[$slot]);
        $generation = $this->generations[$slot] = ($this->generations[$slot] ?? 0) + 1;
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            $this->logger->error('Could not create the channel for worker {slot}; retrying in 1 s.', ['slot' => $slot]);
            $this->restartLater($slot, 1.0);

            return;
        }
        [$masterEnd, $workerEnd] = $pair;
        $pid = pcntl_fork();
        if ($pid === -1) {
            fclose($masterEnd);
            fclose($workerEnd);
            $this->logger->error('fork() failed for worker {slot}; retrying in 1 s.', ['slot' => $slot]);
            $this->restartLater($slot, 1.0);

            return;
        }
        if ($pid === 0) {
            fclose($masterEnd);
            $this->becomeWorker($slot, $generation, $workerEnd);

            return;
        }
        fclose($workerEnd);
        stream_set_blocking($masterEnd, false);
        $process = new WorkerProcess($slot, $generation, $pid, $masterEnd, $this->loop->now(), $this->node);
        $this->processes[$pid] = $process;
        if ($this->cluster !== null) {
            $this->cluster->workerStarted($slot, $generation, $this->node);
            $line = $this->cluster->lineFor($this->node);
            if ($line !== null) {
                $this->tell($process, $line);
            }
        }
        $process->controlWatcher = $this->loop->onReadable($masterEnd, function () use ($process): void {
            $this->readControl($process);
        });
        $this->loop->unreference($process->controlWatcher);
        $process->readTimer = $this->loop->delay($this->options->readyTimeout, function () use ($process): void {
            $process->readTimer = null;
            if (!$process->ready && isset($this->processes[$process->pid])) {
                $this->logger->error('Worker {slot} (pid {pid}) did not report ready within {timeout} s; killing it.', [
                    'slot' => $process->slot, 'pid' => $process->pid, 'timeout' => $this->options->readyTimeout,
                ]);
                posix_kill($process->pid, \SIGKILL);
            }
        });
    }

    /**
     * @param resource $control
     */
    private function becomeWorker(int $slot, int $generation, mixed $control): void
    {
        foreach ([\SIGCHLD, \SIGTERM, \SIGINT, \SIGHUP] as $signal) {
            pcntl_signal($signal, \SIG_DFL);
        }
        foreach ($this->processes as $process) {
            @fclose($process->control);
        }
        foreach ($this->sockets as $other => $socket) {
            if ($other !== $slot) {
                fclose($socket);
            }
        }
        foreach ($this->afterFork as $callback) {
            $callback();
        }
        $nodeSocket = null;
        if ($this->cluster !== null) {
            $nodeSocket = $this->cluster->socket($slot);
        }
        if (\function_exists('cli_set_process_title')) {
            @cli_set_process_title("nexus: worker {$slot}");
        }
        $context = new WorkerContext(
            $slot,
            $this->count,
            $generation,
            $this->options,
            $this->runtimeDir,
            $this->secret,
            $this->sockets[$slot] ?? null,
            $control,
            $this->node,
            $nodeSocket,
            $this->cluster?->options->tls,
        );
        $code = 1;
        try {
            $code = $this->main->run($context);
        } catch (\Throwable $e) {
            $this->logger->critical('Worker {slot} failed: {error}', ['slot' => $slot, 'error' => $e::class . ': ' . $e->getMessage(), 'exception' => $e]);
        }
        // The worker must never return into the master's code: its stack is a copy of the master's.
        exit($code);
    }

    private function readControl(WorkerProcess $process): void
    {
        $bytes = @fread($process->control, 65536);
        if ($bytes === '' || $bytes === false) {
            if ($process->controlWatcher !== null) {
                $this->loop->cancel($process->controlWatcher);
                $process->controlWatcher = null;
            }

            return;
        }
        $process->buffer .= $bytes;
        while (true) {
            if ($process->expect >= 0) {
                if (\strlen($process->buffer) < $process->expect) {
                    if ($process->statsTooLarge) {
                        $process->expect -= \strlen($process->buffer);
                        $process->buffer = '';
                    }

                    return;
                }
                $payload = substr($process->buffer, 0, $process->expect);
                $process->buffer = substr($process->buffer, $process->expect);
                $process->expect = -1;
                $waiter = $process->statsWaiters[$process->statsId] ?? null;
                unset($process->statsWaiters[$process->statsId]);
                if ($waiter !== null) {
                    $waiter($process->statsTooLarge ? null : $payload);
                }
                $process->statsTooLarge = false;
                continue;
            }
            $end = strpos($process->buffer, "\n");
            if ($end === false) {
                if (\strlen($process->buffer) > 4096) {
                    $this->logger->error('Worker {slot} (pid {pid}) sent a control line over 4 KiB; discarded.', ['slot' => $process->slot, 'pid' => $process->pid]);
                    $process->buffer = '';
                }

                return;
            }
            $line = substr($process->buffer, 0, $end);
            $process->buffer = substr($process->buffer, $end + 1);
            if (preg_match('/^stats (\d{1,18}) (\d{1,18})$/', $line, $match) === 1) {
                $process->statsId = (int) $match[1];
                $process->expect = (int) $match[2];
                if ($process->expect > self::MAX_STATS_BYTES) {
                    $this->logger->error('Worker {slot} (pid {pid}) answered stats with {bytes} bytes, above the {max}-byte bound; its answer counts as missing.', ['slot' => $process->slot, 'pid' => $process->pid, 'bytes' => $process->expect, 'max' => self::MAX_STATS_BYTES]);
                    $process->statsTooLarge = true;
                }
            } elseif ($line === 'ready') {
                $this->workerReady($process);
            } elseif (str_starts_with($line, 'recycle')) {
                $this->logger->info('Worker {slot} (pid {pid}) asks to be recycled: {reason}.', ['slot' => $process->slot, 'pid' => $process->pid, 'reason' => trim(substr($line, 7))]);
                $this->queueReplacement($process->slot);
            } elseif ($this->cluster !== null && $process->node === $this->node) {
                $this->cluster->workerSaid($process->slot, $process->generation, $line);
            }
        }
    }

    private function workerReady(WorkerProcess $process): void
    {
        $process->ready = true;
        if ($process->readTimer !== null) {
            $this->loop->cancel($process->readTimer);
            $process->readTimer = null;
        }
        $this->logger->info('Worker {slot} ready (pid {pid}, generation {generation}).', ['slot' => $process->slot, 'pid' => $process->pid, 'generation' => $process->generation]);
        if ($this->replacing === $process->slot) {
            foreach ($this->processes as $old) {
                if ($old->slot === $process->slot && $old->generation < $process->generation && !$old->retiring) {
                    $this->retire($old);
                }
            }
            $this->replacing = null;
            $this->nextReplacement();
        }
    }

    private function retire(WorkerProcess $process): void
    {
        $process->retiring = true;
        posix_kill($process->pid, \SIGTERM);
        $pid = $process->pid;
        $timeout = $this->options->killTimeout();
        $timer = $this->loop->delay($timeout, function () use ($pid, $timeout): void {
            if (isset($this->processes[$pid])) {
                $this->logger->warning('Worker pid {pid} had not stopped {timeout} s after SIGTERM; killing it.', ['pid' => $pid, 'timeout' => $timeout]);
                posix_kill($pid, \SIGKILL);
            }
        });
        $this->loop->unreference($timer);
    }

    private function reload(): void
    {
        if ($this->stopping) {
            return;
        }
        $this->logger->info('SIGHUP: reloading {count} workers one at a time.', ['count' => $this->count]);
        for ($slot = 0; $slot < $this->count; ++$slot) {
            $this->queueReplacement($slot);
        }
    }

    private function queueReplacement(int $slot): void
    {
        if ($this->replacing !== $slot && !\in_array($slot, $this->replaceQueue, true)) {
            $this->replaceQueue[] = $slot;
        }
        if ($this->replacing === null) {
            $this->nextReplacement();
        }
    }

    private function nextReplacement(): void
    {
        if ($this->stopping) {
            $this->replaceQueue = [];

            return;
        }
        $slot = array_shift($this->replaceQueue);
        if ($slot === null) {
            return;
        }
        $this->replacing = $slot;
        $this->spawn($slot);
    }

    /**
     * A signal to the master: acted on while run() supervises, kept until then before it (a
     * SIGHUP before the workers exist has nothing to reload; a node still joining ends its wait
     * through its own handler).
     */
    private function signalled(string $signal): void
    {
        if (!$this->running) {
            $this->deferredSignal = $signal === 'SIGHUP' ? $this->deferredSignal : $signal;

            return;
        }
        if ($signal === 'SIGHUP') {
            $this->reload();
        } else {
            $this->stop($signal);
        }
    }

    private function cancelSignalWatchers(): void
    {
        foreach ($this->signalWatchers as $watcher) {
            $this->loop->cancel($watcher);
        }
        $this->signalWatchers = [];
    }

    private function stop(string $signal): void
    {
        if ($this->stopping) {
            return;
        }
        $this->stopping = true;
        $this->replaceQueue = [];
        foreach ($this->onStop as $callback) {
            $callback();
        }
        $retireAll = function () use ($signal): void {
            $this->logger->info('{signal}: stopping {count} workers gracefully (in-flight requests get {timeout} s).', [
                'signal' => $signal, 'count' => \count($this->processes), 'timeout' => $this->options->stopTimeout,
            ]);
            foreach ($this->processes as $process) {
                if (!$process->retiring) {
                    $this->retire($process);
                }
            }
        };
        if ($this->cluster === null) {
            $retireAll();

            return;
        }
        // The node hands its entities off to the others first; its workers serve meanwhile.
        $this->cluster->leave()->onSettle(static function () use ($retireAll): void {
            $retireAll();
        });
    }

    private function reap(): void
    {
        $status = 0;
        while (($pid = pcntl_waitpid(-1, $status, \WNOHANG)) > 0) {
            \assert(\is_int($status));
            $process = $this->processes[$pid] ?? null;
            if ($process === null) {
                continue;
            }
            unset($this->processes[$pid]);
            if ($process->controlWatcher !== null) {
                $this->loop->cancel($process->controlWatcher);
            }
            if ($process->readTimer !== null) {
                $this->loop->cancel($process->readTimer);
            }
            @fclose($process->control);
            foreach ($process->statsWaiters as $waiter) {
                $waiter(null);
            }
            $process->statsWaiters = [];
            $how = pcntl_wifsignaled($status)
                ? 'killed by signal ' . pcntl_wtermsig($status)
                : 'exit code ' . pcntl_wexitstatus($status);
            if ($process->retiring || $this->stopping) {
                $this->logger->info('Worker {slot} (pid {pid}) stopped ({how}).', ['slot' => $process->slot, 'pid' => $pid, 'how' => $how]);

                continue;
            }
            $this->crashed($process, $how);
        }
    }

    private function crashed(WorkerProcess $process, string $how): void
    {
        $slot = $process->slot;
        if ($this->replacing === $slot && !$process->ready) {
            $this->replacing = null;
            $this->logger->error('The new worker {slot} (pid {pid}) died before it was ready ({how}); the old one keeps serving.', ['slot' => $slot, 'pid' => $process->pid, 'how' => $how]);
            $this->nextReplacement();

            return;
        }
        foreach ($this->processes as $other) {
            if ($other->slot === $slot && !$other->retiring) {
                return; // a replacement for this slot already runs
            }
        }
        $now = $this->loop->now();
        $recent = array_values(array_filter(
            $this->crashes[$slot] ?? [],
            fn(float $at): bool => $now - $at < $this->options->crashLoopWindow,
        ));
        $recent[] = $now;
        $this->crashes[$slot] = $recent;
        $this->restarts[$slot] = ($this->restarts[$slot] ?? 0) + 1;
        $excess = \count($recent) - $this->options->crashLoopCrashes;
        if ($excess < 0) {
            $this->logger->error('Worker {slot} (pid {pid}) died ({how}); starting a replacement.', ['slot' => $slot, 'pid' => $process->pid, 'how' => $how]);
            $this->spawn($slot);

            return;
        }
        $delay = min($this->options->maxRestartDelay, 0.1 * 2 ** min(10, $excess));
        $this->logger->critical('Worker {slot} (pid {pid}) died ({how}), {crashes} times in {window} s: crash loop, restarting in {delay} s.', [
            'slot' => $slot, 'pid' => $process->pid, 'how' => $how, 'crashes' => \count($recent),
            'window' => $this->options->crashLoopWindow, 'delay' => round($delay, 2),
        ]);
        $this->restartLater($slot, $delay);
    }

    private function restartLater(int $slot, float $delay): void
    {
        if (isset($this->restarting[$slot])) {
            return;
        }
        $this->restarting[$slot] = true;
        $this->loop->delay($delay, function () use ($slot): void {
            if (!$this->stopping) {
                $this->spawn($slot);
            } else {
                unset($this->restarting[$slot]);
            }
        });
    }

    /**
     * Removes the runtime directories of pools whose master died without cleaning up (SIGKILL):
     * only ours (same owner), named nexus-<pid>-<hex>, whose pid is gone, holding only sockets.
     */
    private static function removeStaleRuntimeDirs(string $base): void
    {
        foreach (glob(rtrim($base, '/') . '/nexus-*-*', \GLOB_ONLYDIR) ?: [] as $dir) {
            if (preg_match('#/nexus-(\d+)-[0-9a-f]{8}$#', $dir, $match) !== 1
                || @fileowner($dir) !== posix_geteuid()
                || posix_kill((int) $match[1], 0)) {
                continue;
            }
            $files = glob($dir . '/*') ?: [];
            foreach ($files as $file) {
                if (preg_match('#/worker-\d+(-\d+-\d+)?\.sock(\.\d+)?$#', $file) !== 1) {
                    continue 2;
                }
            }
            foreach ($files as $file) {
                @unlink($file);
            }
            @rmdir($dir);
        }
    }

    private function cleanUp(): void
    {
        $this->cluster?->closeSockets();
        foreach ($this->sockets as $socket) {
            @fclose($socket);
        }
        $this->sockets = [];
        foreach (glob($this->runtimeDir . '/*') ?: [] as $file) {
            @unlink($file);
        }
        @rmdir($this->runtimeDir);
    }
}
