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

    /**
     * @param resource|null $httpSocket a listening socket (SO_REUSEPORT) inherited from the master
     * @param resource|null $control    this worker's end of its channel to the master (null: none)
     * @param int           $node       this node's number in a cluster (0: none; see Slots)
     * @param resource|null $nodeSocket where this worker accepts links from other nodes (TCP)
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
     * Calls $onGone once the master has gone away (its end of the channel closed), so that no
     * worker outlives it.
     *
     * @param \Closure(): void $onGone
     */
    public function watchMaster(Loop $loop, \Closure $onGone): void
    {
        $this->channel($loop)?->onGone($onGone);
    }

    private function channel(Loop $loop): ?ControlChannel
    {
        if ($this->control === null) {
            return null; // no master to outlive or hear from
        }

        return $this->channel ??= new ControlChannel($loop, $this->control);
    }

    private function report(string $line): void
    {
        if ($this->control !== null) {
            @fwrite($this->control, str_replace("\n", ' ', $line) . "\n");
        }
    }
}
