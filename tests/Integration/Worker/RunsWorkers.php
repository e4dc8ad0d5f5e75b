<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorSystem;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Worker\Internal\Mesh;
use Nexus\Worker\PoolOptions;
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
        foreach ([$this->dir, $this->dir . '-never'] as $dir) {
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
