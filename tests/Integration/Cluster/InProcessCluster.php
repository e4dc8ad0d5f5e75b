<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\Actor\ActorSystem;
use Nexus\Cluster\Member;
use Nexus\Cluster\View;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\Slots;
use Nexus\Worker\WorkerContext;
use Nexus\Worker\Workers;

/**
 * Nodes of a cluster in one process, on one loop: every worker has its own actor system, its
 * links over real Unix sockets (within its node) and TCP on loopback (between nodes), and its
 * channel to a master that this class plays: it passes views to the workers as the membership
 * provider would, and marks a member applied once all its workers said so. So placement, routing,
 * hand-off and failures are tested without etcd; EtcdMembershipTest covers etcd.
 */
final class InProcessCluster
{
    private const SECRET = 'in-process-cluster-secret-0123456';

    /** @var array<int, Member> members by incarnation */
    private array $members = [];
    /** @var array<int, array<int, array{Workers, ActorSystem, MemoryLogger, resource}>> workers by node and worker number */
    private array $workers = [];
    /** @var array<int, array<int, int>> what each worker reported applied, by node and worker */
    private array $applied = [];
    /** @var array<int, string> control line buffers by object id */
    private array $buffers = [];
    private int $revision = 100;
    public ?View $view = null;
    /** @var list<string> directories to remove */
    private array $dirs = [];
    /** Whether views are passed on automatically after each change. */
    public bool $autoSettle = true;

    public function __construct(public readonly Loop $loop)
    {
        $loop->unreference($loop->repeat(0.002, $this->poll(...)));
    }

    /**
     * Starts a node of $count workers; $configure($workers, $system, $node, $worker) declares what
     * every worker declares (as an application file would). It joins the view at once unless
     * $join is false.
     *
     * @param \Closure(Workers, ActorSystem, int, int): void $configure
     */
    public function startNode(string $name, int $count, \Closure $configure, bool $join = true): int
    {
        $node = ++$this->revision;
        $dir = sys_get_temp_dir() . '/nexus-cluster-test-' . bin2hex(random_bytes(4));
        mkdir($dir, 0o700);
        $this->dirs[] = $dir;
        $addresses = [];
        for ($w = 0; $w < $count; ++$w) {
            $tcp = stream_socket_server('tcp://127.0.0.1:0');
            \assert(\is_resource($tcp));
            $addresses[] = 'tcp://' . stream_socket_get_name($tcp, false);
            $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
            \assert(\is_array($pair));
            stream_set_blocking($pair[0], false);
            $logger = new MemoryLogger();
            $system = new ActorSystem("{$name}-{$w}", $logger, $this->loop);
            $context = new WorkerContext($w, $count, 1, new PoolOptions(workers: $count, undeliveredTimeout: 2.0), $dir, self::SECRET, null, $pair[1], $node, $tcp);
            $workers = $context->join($system);
            $configure($workers, $system, $node, $w);
            $this->workers[$node][$w] = [$workers, $system, $logger, $pair[0]];
            $this->applied[$node][$w] = 0;
        }
        $this->members[$node] = new Member($name, $node, $addresses, 'store-1');
        if ($join) {
            $this->publish();
        }

        return $node;
    }

    /**
     * A member leaves the view as when its lease expires (its processes may still run: a node
     * cut off, or killed with kill()).
     */
    public function expire(int $node): void
    {
        unset($this->members[$node]);
        $this->publish();
    }

    /**
     * Marks a member leaving: its entities move once it has applied that.
     */
    public function markLeaving(int $node): void
    {
        $member = $this->members[$node];
        $this->members[$node] = $member->with(true, ++$this->revision, $member->applied);
        $this->publish(false);
    }

    /**
     * Tells every worker of $node that it must stop hosting (its lease could expire).
     */
    public function fence(int $node, string $why = 'the test fenced it'): void
    {
        foreach ($this->workers[$node] as [, , , $control]) {
            fwrite($control, "fence {$why}\n");
        }
    }

    /**
     * Ends a node's actor systems at once, as kill -9 would end its processes (its sockets close).
     */
    public function kill(int $node): void
    {
        foreach ($this->workers[$node] as [$workers, $system]) {
            $this->mesh($workers)->stop();
            $system->shutdown(0.0);
        }
        foreach ($this->workers[$node] as [$workers]) {
            $this->closeLinks($workers);
        }
        unset($this->workers[$node]);
    }

    /**
     * @return array{Workers, ActorSystem, MemoryLogger}
     */
    public function worker(int $node, int $worker): array
    {
        [$workers, $system, $logger] = $this->workers[$node][$worker];

        return [$workers, $system, $logger];
    }

    /**
     * @return list<array{Workers, ActorSystem, MemoryLogger}>
     */
    public function all(): array
    {
        $all = [];
        foreach ($this->workers as $workers) {
            foreach ($workers as [$w, $system, $logger]) {
                $all[] = [$w, $system, $logger];
            }
        }

        return $all;
    }

    public function isSettled(): bool
    {
        return $this->view !== null && $this->view->settled();
    }

    public function cleanUp(): void
    {
        foreach ($this->dirs as $dir) {
            array_map('unlink', glob($dir . '/*') ?: []);
            @rmdir($dir);
        }
    }

    /**
     * Passes the current members on as a new view (a new revision when membership changed).
     */
    public function publish(bool $membership = true): void
    {
        if ($membership) {
            ++$this->revision;
        }
        $members = array_values($this->members);
        usort($members, static fn(Member $a, Member $b): int => $a->incarnation <=> $b->incarnation);
        $this->view = new View($this->revision, $members);
        $line = 'view ' . $this->view->encode() . "\n";
        foreach ($this->workers as $node => $workers) {
            if (!isset($this->members[$node])) {
                continue; // a member that left the view hears nothing more
            }
            foreach ($workers as [, , , $control]) {
                fwrite($control, $line);
            }
        }
    }

    private function poll(): void
    {
        $changed = false;
        foreach ($this->workers as $node => $workers) {
            foreach ($workers as $w => [, , , $control]) {
                $key = (int) $control;
                $this->buffers[$key] = ($this->buffers[$key] ?? '') . (string) @fread($control, 65_536);
                while (($end = strpos($this->buffers[$key], "\n")) !== false) {
                    $line = substr($this->buffers[$key], 0, $end);
                    $this->buffers[$key] = substr($this->buffers[$key], $end + 1);
                    if (str_starts_with($line, 'applied ')) {
                        $this->applied[$node][$w] = max($this->applied[$node][$w], (int) substr($line, 8));
                        $changed = true;
                    }
                }
            }
        }
        if ($changed && $this->autoSettle) {
            $this->settle();
        }
    }

    /**
     * Marks each member applied up to what all its workers reported, and passes that on.
     */
    public function settle(): void
    {
        $publish = false;
        foreach ($this->members as $node => $member) {
            $applied = min([\PHP_INT_MAX, ...($this->applied[$node] ?? [0])]);
            if ($applied > $member->applied) {
                $this->members[$node] = $member->with($member->leaving, $member->leavingSince, $applied);
                $publish = true;
            }
        }
        if ($publish) {
            $this->publish(false);
        }
    }

    private function mesh(Workers $workers): \Nexus\Worker\Internal\Mesh
    {
        $mesh = (new \ReflectionProperty($workers, 'mesh'))->getValue($workers);
        \assert($mesh instanceof \Nexus\Worker\Internal\Mesh);

        return $mesh;
    }

    private function closeLinks(Workers $workers): void
    {
        $mesh = $this->mesh($workers);
        (new \ReflectionMethod($mesh, 'closeAll'))->invoke($mesh);
    }

    public static function slot(int $node, int $worker): int
    {
        return Slots::id($node, $worker);
    }
}
