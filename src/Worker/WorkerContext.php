<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorSystem;
use Nexus\Cluster\View;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Worker\Codec\Codecs;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Internal\ControlChannel;
use Nexus\Worker\Internal\Mesh;
use Nexus\Worker\Internal\Placements;
use Nexus\Worker\Transport\LinkTls;
use Psr\Log\LoggerInterface;

/**
 * What a worker process gets from the master: its slot, the pool's secret and runtime
 * directory, its inherited HTTP socket, and the channel to report back on. A process that serves
 * alone (`nexus serve --workers=1`) runs the same WorkerMain with a standalone() context: no
 * master, no links, every actor local.
 */
final class WorkerContext
{
    /** Workers spin only this long after the last message between workers: plain HTTP traffic never makes them spin. */
    private const SPIN_WINDOW = 0.01;

    private bool $readySent = false;
    private bool $recycleSent = false;
    private ?Mesh $mesh = null;
    private ?ControlChannel $channel = null;
    /** @var (\Closure(string): string)|null */
    private ?\Closure $stats = null;
    /** Answers to the master not written yet (the channel is non-blocking once watchMaster() ran). */
    private string $outgoing = '';
    private ?Loop $loop = null;
    private ?int $writeWatcher = null;

    /**
     * @param resource|null $httpSocket a listening socket (SO_REUSEPORT) inherited from the master
     * @param resource|null $control    this worker's end of its channel to the master (null: none)
     * @param int           $node       this node's number in a cluster (0: none; see Slots)
     * @param resource|null $nodeSocket where this worker accepts links from other nodes (TCP)
     * @param LinkTls|null  $nodeTls    TLS on the links with other nodes (null: plain TCP)
     *
     * @internal made by WorkerPool
     */
    public function __construct(
        public readonly int $id,
        public readonly int $count,
        public readonly int $generation,
        public readonly PoolOptions $options,
        private readonly string $runtimeDir,
        #[\SensitiveParameter]
        private readonly string $secret,
        private readonly mixed $httpSocket,
        private readonly mixed $control,
        public readonly int $node = 0,
        private readonly mixed $nodeSocket = null,
        private readonly ?LinkTls $nodeTls = null,
    ) {}

    /**
     * A process that serves by itself, without a master: a pool of one, listening on $httpSocket.
     *
     * @param resource|null $httpSocket a listening socket
     */
    public static function standalone(PoolOptions $options, mixed $httpSocket): self
    {
        return new self(0, 1, 1, $options, '', '', $httpSocket, null);
    }

    /**
     * Whether this process serves alone, without a master.
     */
    public function isStandalone(): bool
    {
        return $this->control === null;
    }

    /**
     * Starts this worker's end of the links between workers and returns the pool as the
     * application sees it (a pool of one for a standalone process).
     */
    public function join(ActorSystem $system): Workers
    {
        if ($this->control === null) {
            return Workers::single($system);
        }
        $system->loop->spinBeforeBlocking($this->options->spin, self::SPIN_WINDOW);
        $classes = new MessageClasses();
        $mesh = new Mesh(
            $system,
            $this->id,
            $this->count,
            $this->runtimeDir,
            $this->secret,
            $classes,
            Codecs::best($classes),
            $this->options->undeliveredTimeout,
            $this->generation,
            $this->node,
            $this->nodeTls,
        );
        $mesh->start();
        $channel = $this->channel($system->loop);
        if ($this->node > 0 && $channel !== null) {
            $placements = $mesh->placements = new Placements($mesh, $this->report(...));
            $channel->onLine(static function (string $line) use ($placements, $system): void {
                if (str_starts_with($line, 'view ')) {
                    $view = View::decode(substr($line, 5));
                    if ($view === null) {
                        $system->logger->error('The master sent a view this worker cannot read; ignored.');

                        return;
                    }
                    $placements->apply($view);
                } elseif (str_starts_with($line, 'fence ')) {
                    $placements->fence(substr($line, 6));
                }
            });
        }
        if ($this->nodeSocket !== null) {
            $mesh->listenForNodes(Listener::fromSocket($system->loop, $this->nodeSocket, new ListenOptions(tcpNoDelay: true), $system->logger));
        }
        $system->whenTerminated()->onSettle(static function () use ($mesh): void {
            $mesh->stop();
        });
        $this->mesh = $mesh;

        return Workers::meshed($mesh, $classes);
    }

    /**
     * The links from this worker to the others (Mesh::linkStats()): empty before join().
     *
     * @return list<array{peer: int, framesSent: int, bytesSent: int, unacknowledged: int, framesReceived: int, bytesReceived: int}>
     */
    public function linkStats(): array
    {
        return $this->mesh?->linkStats() ?? [];
    }

    /**
     * Call first when this worker is asked to stop: during a reload (a new worker has taken this
     * slot), its named actors and entities stop, each after the messages queued before and its
     * write in flight, and pass with what they still had queued to the new worker, which starts
     * them only then. The future settles once they have all stopped (null: nothing to wait for,
     * the pool is stopping or join() was not called): shut the actor system down only then, so
     * that none is stopped hard in the middle of a write.
     *
     * @return Future<null>|null
     */
    public function handOff(): ?Future
    {
        $mesh = $this->mesh;
        if ($mesh === null) {
            return null;
        }
        $mesh->handOff();

        return $mesh->handOff->completed();
    }

    /**
     * Runs the loop until the links to the other workers have drained after the actor system
     * terminated (at most Mesh::DRAIN_TIMEOUT): call it before the process exits, so that what
     * this worker sent or forwarded last is not lost.
     */
    public function drain(): void
    {
        $this->mesh?->stop()->await();
    }

    /**
     * The inherited HTTP socket on the loop, or null when the pool listens on none.
     */
    public function httpListener(Loop $loop, ListenOptions $options = new ListenOptions(tcpNoDelay: true), ?LoggerInterface $logger = null): ?Listener
    {
        return $this->httpSocket === null ? null : Listener::fromSocket($loop, $this->httpSocket, $options, $logger);
    }

    /**
     * Tells the master this worker serves: during a reload, the worker it replaces is stopped now.
     */
    public function ready(): void
    {
        if (!$this->readySent && $this->control !== null) {
            $this->readySent = true;
            $this->report('ready');
        }
    }

    /**
     * Asks the master for a replacement (request count or memory reached); the master starts one
     * and then stops this worker gracefully.
     */
    public function recycle(string $reason): void
    {
        if (!$this->recycleSent && $this->control !== null) {
            $this->recycleSent = true;
            $this->report('recycle ' . str_replace("\n", ' ', $reason));
        }
    }

    /**
     * Answers the master's stats queries (WorkerPool::collectStats()) with $provider($question):
     * a string of at most WorkerPool::MAX_STATS_BYTES, called on this worker's loop, which must not
     * wait. Takes effect with watchMaster(). A query that arrives while the previous answer is
     * still being written is answered after it; the master times out a worker that never answers.
     *
     * @param \Closure(string): string $provider
     */
    public function answerStats(\Closure $provider): void
    {
        $this->stats = $provider;
    }

    /**
     * Calls $onGone once the master has gone away (its end of the channel closed), so that no
     * worker outlives it, and answers the master's stats queries (see answerStats()).
     *
     * @param \Closure(): void $onGone
     */
    public function watchMaster(Loop $loop, \Closure $onGone): void
    {
        $this->loop = $loop;
        $channel = $this->channel($loop);
        if ($channel === null) {
            return; // no master to outlive or hear from
        }
        $channel->onGone($onGone);
        $channel->onLine(function (string $line): void {
            if (preg_match('/^stats (\d{1,18}) ([a-z]{1,16})$/', $line, $match) === 1) {
                $this->answer($match[1], $match[2]);
            }
        });
    }

    private function channel(Loop $loop): ?ControlChannel
    {
        if ($this->control === null) {
            return null; // no master to outlive or hear from
        }

        return $this->channel ??= new ControlChannel($loop, $this->control);
    }

    private function answer(string $id, string $question): void
    {
        $payload = '';
        if (\strlen($this->outgoing) > WorkerPool::MAX_STATS_BYTES) {
            // The master reads nothing: add no more; it counts this worker's answer as missing.
        } elseif ($this->stats !== null) {
            try {
                $payload = ($this->stats)($question);
            } catch (\Throwable $e) {
                $this->loop?->reportError($e);
                $payload = '';
            }
        }
        $this->send('stats ' . $id . ' ' . \strlen($payload) . "\n" . $payload);
    }

    private function report(string $line): void
    {
        if ($this->control === null) {
            return;
        }
        $line = str_replace("\n", ' ', $line);
        if ($this->loop === null) {
            @fwrite($this->control, $line . "\n"); // still blocking: before watchMaster()

            return;
        }
        $this->send($line . "\n");
    }

    private function send(string $bytes): void
    {
        $this->outgoing .= $bytes;
        $this->flush();
    }

    private function flush(): void
    {
        if ($this->control === null) {
            $this->outgoing = '';

            return;
        }
        if ($this->outgoing !== '') {
            $written = @fwrite($this->control, $this->outgoing);
            if (\is_int($written) && $written > 0) {
                $this->outgoing = (string) substr($this->outgoing, $written);
            } elseif ($written === false) {
                $this->outgoing = ''; // the master is gone: watchMaster() sees the end
            }
        }
        $loop = $this->loop;
        if ($loop === null) {
            return;
        }
        if ($this->outgoing === '' && $this->writeWatcher !== null) {
            $loop->cancel($this->writeWatcher);
            $this->writeWatcher = null;
        } elseif ($this->outgoing !== '' && $this->writeWatcher === null) {
            $this->writeWatcher = $loop->onWritable($this->control, function (): void {
                $this->flush();
            });
            $loop->unreference($this->writeWatcher);
        }
    }
}
