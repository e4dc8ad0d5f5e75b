<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorSystem;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Worker\Internal\Mesh;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\Slots;
use Nexus\Worker\Transport\LinkTls;
use Nexus\Worker\WorkerContext;
use Nexus\Worker\Workers;

/**
 * Workers of a pool in one process: each has its own actor system and its end of the links, on
 * one loop, over real Unix sockets in a real runtime directory. Every wait has a deadline.
 */
trait RunsWorkers
{
    use RunsTheLoop;

    private const SECRET = '0123456789abcdef0123456789abcdef';

    private Loop $loop;
    private string $dir;
    /** @var list<ActorSystem> */
    private array $systems = [];
    /** @var array<int, string> TCP address of each node's slot (nodeWorker()) */
    private array $addresses = [];
    /** @var list<Workers> what nodeWorker() started, in order */
    private array $nodes = [];
    /** @var array<int, MemoryLogger> */
    private array $loggers = [];
    /** @var list<WorkerContext> */
    private array $contexts = [];

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->dir = sys_get_temp_dir() . '/nexus-mesh-test-' . bin2hex(random_bytes(4));
        mkdir($this->dir, 0o700);
        $this->giveUpAfter($this->timeLimit());
        $this->loop->unreference($this->loop->repeat(0.1, static function (): void {})); // lets checkLoop() run
    }

    protected function tearDown(): void
    {
        foreach ([$this->dir, $this->dir . '-never', ...(glob($this->dir . '-node*') ?: [])] as $dir) {
            foreach (glob($dir . '/*') ?: [] as $file) {
                @unlink($file);
            }
            @rmdir($dir);
        }
    }


    protected function timeLimit(): float
    {
        return 20.0;
    }

    private function worker(int $id, float $undeliveredTimeout = 5.0, int $count = 2, ?string $dir = null, int $generation = 1): Workers
    {
        $dir ??= $this->dir;
        if (!is_dir($dir)) {
            mkdir($dir, 0o700);
        }
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertIsArray($pair);
        $logger = new MemoryLogger();
        $system = new ActorSystem("worker-{$id}", $logger, $this->loop);
        $this->systems[] = $system;
        $this->loggers[\count($this->systems) - 1] = $logger;
        $context = new WorkerContext($id, $count, $generation, new PoolOptions(workers: $count, undeliveredTimeout: $undeliveredTimeout), $dir, self::SECRET, null, $pair[1]);
        $this->contexts[] = $context;

        return $context->join($system);
    }

    /**
     * Worker $worker of node $node: its own runtime directory (its machine) and a TCP socket on
     * loopback for the other nodes, with TLS $tls on those links (null: plain TCP); every node
     * started so far learns where every other listens.
     */
    private function nodeWorker(int $node, int $worker, string $secret = self::SECRET, float $undeliveredTimeout = 5.0, ?LinkTls $tls = null): Workers
    {
        $dir = $this->dir . "-node{$node}";
        if (!is_dir($dir)) {
            mkdir($dir, 0o700);
        }
        $tcp = stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($tcp);
        $this->addresses[Slots::id($node, $worker)] = 'tcp://' . stream_socket_get_name($tcp, false);
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertIsArray($pair);
        $logger = new MemoryLogger();
        $system = new ActorSystem("node-{$node}-{$worker}", $logger, $this->loop);
        $this->systems[] = $system;
        $this->loggers[\count($this->systems) - 1] = $logger;
        $context = new WorkerContext($worker, 2, 1, new PoolOptions(workers: 2, undeliveredTimeout: $undeliveredTimeout), $dir, $secret, null, $pair[1], $node, $tcp, $tls);
        $this->contexts[] = $context;
        $workers = $context->join($system);
        $this->nodes[] = $workers;
        foreach ($this->nodes as $each) {
            $this->mesh($each)->setRemoteAddresses($this->addresses);
        }

        return $workers;
    }

    /**
     * @param list<\Nexus\Runtime\Future<mixed>> $futures
     */
    private function runUntilSettled(array $futures): void
    {
        $this->runUntil(static function () use ($futures): bool {
            foreach ($futures as $future) {
                if (!$future->isSettled()) {
                    return false;
                }
            }

            return true;
        });
    }

    /**
     * The mesh behind $workers, to look at its tables.
     */
    private function mesh(Workers $workers): Mesh
    {
        $mesh = (new \ReflectionProperty($workers, 'mesh'))->getValue($workers);
        self::assertInstanceOf(Mesh::class, $mesh);

        return $mesh;
    }

    private function logged(int $system, string $level, string $text): bool
    {
        return str_contains(implode("\n", $this->loggers[$system]->messages($level)), $text);
    }
}
