<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\Cluster\Etcd\EtcdClient;
use Nexus\Cluster\Etcd\EtcdMembership;
use Nexus\Cluster\Member;
use Nexus\Cluster\View;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\EtcdServer;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * Membership in a real etcd: leases kept alive, views by revision, applied and leaving marks, a
 * member that stops renewing leaves the view after its TTL, and one that loses etcd is fenced
 * before its lease can expire.
 */
final class EtcdMembershipTest extends TestCase
{
    use RunsTheLoop;

    private ?EtcdServer $etcd = null;
    private Loop $loop;
    private string $prefix;
    /** @var array<string, list<View>> views seen, by member name */
    private array $views = [];
    /** @var array<string, string> why each fenced member was fenced */
    private array $fenced = [];
    /** @var array<string, float> loop time each was fenced at */
    private array $fencedAt = [];
    /** @var list<EtcdClient> */
    private array $clients = [];

    protected function setUp(): void
    {
        $why = null;
        if (EtcdServer::binary($why) === null) {
            self::markTestSkipped((string) $why);
        }
        $this->etcd = EtcdServer::start();
        $this->loop = new Loop();
        $this->prefix = '/nexus-test-' . bin2hex(random_bytes(3)) . '/';
    }

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->close();
        }
        $this->etcd?->destroy();
    }

    public function testMembersSeeTheSameViewsAndApplyAndLeaveMarks(): void
    {
        [$a, $ma] = $this->join('a', 2);
        [$b, $mb] = $this->join('b', 1);
        $this->pollUntil(fn(): bool => $this->latest('a')?->members !== null && \count($this->latest('a')->members) === 2);

        $view = $this->latest('a');
        self::assertNotNull($view);
        self::assertSame(['a', 'b'], array_map(static fn(Member $m): string => $m->name, $view->members));
        self::assertGreaterThan($ma->incarnation, $mb->incarnation);
        self::assertSame([...$ma->slots(), ...$mb->slots()], $view->slots);
        self::assertSame(['tcp://127.0.0.1:7001', 'tcp://127.0.0.1:7002'], $view->member($ma->incarnation)?->workers);
        self::assertSame($mb->incarnation, $view->barrier(), 'the latest join');
        self::assertFalse($view->settled());
        $this->pollUntil(fn(): bool => $this->latest('b')?->encode() === $this->latest('a')?->encode());

        $a->applied($view->revision);
        $b->applied($view->revision);
        $this->pollUntil(fn(): bool => $this->latest('a')?->settled() === true && $this->latest('b')?->settled() === true);
        self::assertSame($view->revision, $this->latest('a')?->revision, 'an applied mark is no change of membership');

        $a->markLeaving()->await();
        $this->pollUntil(fn(): bool => $this->latest('b')?->member($ma->incarnation)?->leaving === true);
        $leaving = $this->latest('b');
        self::assertNotNull($leaving);
        self::assertSame($mb->slots(), $leaving->slots, 'a leaving member is given nothing');
        self::assertGreaterThan($view->revision, $leaving->revision);
        self::assertSame($leaving->member($ma->incarnation)?->leavingSince, $leaving->barrier());
        self::assertFalse($leaving->settled());

        $a->leave()->await();
        $this->pollUntil(fn(): bool => \count($this->latest('b')->members ?? []) === 1);
        self::assertSame(['b'], array_map(static fn(Member $m): string => $m->name, $this->latest('b')->members ?? []));
        self::assertSame([], $this->fenced);
    }

    public function testAMemberThatStopsRenewingLeavesTheViewAfterItsLease(): void
    {
        [$a] = $this->join('a', 1, ttl: 2);
        [, $mb] = $this->join('b', 1, ttl: 2);
        $this->pollUntil(fn(): bool => \count($this->latest('b')->members ?? []) === 2);
        $a->close(); // as a killed node: no revoke, no renewal
        $closedAt = microtime(true);
        $this->pollUntil(fn(): bool => \count($this->latest('b')->members ?? []) === 1, 15.0);

        self::assertGreaterThan(1.0, microtime(true) - $closedAt, 'it stayed until its lease expired');
        self::assertSame([$mb->incarnation], array_map(static fn(Member $m): int => $m->incarnation, $this->latest('b')->members ?? []));
    }

    public function testAMemberThatLosesEtcdIsFencedBeforeItsLeaseCanExpireAndRejoinsAsANewIncarnation(): void
    {
        $ttl = 3;
        [$a, $ma] = $this->join('a', 1, ttl: $ttl);
        $lastView = $this->latest('a');
        $etcd = $this->etcd;
        \assert($etcd !== null);
        $stoppedAt = $this->loop->now();
        $etcd->kill();
        $this->pollUntil(fn(): bool => isset($this->fenced['a']), 15.0);

        self::assertLessThanOrEqual($stoppedAt + $ttl - $a->fenceMargin() + 0.5, $this->fencedAt['a'], 'fenced at least the margin before the lease could expire');
        self::assertStringContainsString('could not be renewed', $this->fenced['a']);
        self::assertSame($lastView, $this->latest('a'), 'no view while etcd is away');

        $etcd->restart();
        unset($this->fenced['a']);
        $again = $a->join(new Member('a', 0, ['tcp://127.0.0.1:7001'], 'store-1'), function (View $view): void {
            $this->views['a'][] = $view;
        }, function (string $why): void {
            $this->fenced['a'] = $why;
        });
        $this->pollUntil(static fn(): bool => $again->isSettled(), 15.0);
        $member = $again->await();
        self::assertGreaterThan($ma->incarnation, $member->incarnation);
        $this->pollUntil(fn(): bool => array_map(static fn(Member $m): int => $m->incarnation, $this->latest('a')->members ?? []) === [$member->incarnation], 15.0);
    }

    /**
     * @return array{EtcdMembership, Member}
     */
    private function join(string $name, int $workers, int $ttl = 5): array
    {
        $etcd = $this->etcd;
        \assert($etcd !== null);
        $client = new EtcdClient($this->loop, $etcd->endpoint(), 5.0);
        $this->clients[] = $client;
        $membership = new EtcdMembership($client, $this->prefix, $ttl, new MemoryLogger());
        $addresses = [];
        for ($w = 1; $w <= $workers; ++$w) {
            $addresses[] = "tcp://127.0.0.1:700{$w}";
        }
        $this->views[$name] = [];
        $joined = $membership->join(
            new Member($name, 0, $addresses, 'store-1'),
            function (View $view) use ($name): void {
                $this->views[$name][] = $view;
            },
            function (string $why) use ($name): void {
                $this->fenced[$name] = $why;
                $this->fencedAt[$name] = $this->loop->now();
            },
        );
        $this->pollUntil(static fn(): bool => $joined->isSettled(), 15.0);

        return [$membership, $joined->await()];
    }

    private function latest(string $name): ?View
    {
        $views = $this->views[$name] ?? [];

        return $views === [] ? null : $views[\count($views) - 1];
    }
}
