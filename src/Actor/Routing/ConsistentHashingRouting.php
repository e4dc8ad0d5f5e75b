<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

use Nexus\Actor\ActorRef;

/**
 * Messages with equal keys to the same routee. The routees sit on a hash ring, each at
 * $virtualNodes points derived from its path, and a key goes to the first point at or after its
 * own hash. Adding or removing one of n routees therefore moves only about 1/n of the keys, and
 * a routee that comes back under the same path gets its old keys back.
 *
 * The key is what $keyExtractor returns for the message; when there is no extractor or it
 * returns null, the message's own hashKey() if it is ConsistentHashable. A message with neither
 * cannot be routed (UnroutableMessageException).
 */
final class ConsistentHashingRouting implements RoutingLogic
{
    /** @var list<ActorRef>|null the routees the ring below was built for */
    private ?array $ringRoutees = null;
    /** @var list<int> the hashes of all virtual nodes, ascending */
    private array $points = [];
    /** @var list<ActorRef> the routee owning the point at the same index */
    private array $owners = [];

    /**
     * @param int $virtualNodes points per routee on the ring: more spread the keys more evenly
     * @param (\Closure(mixed): (string|int|null))|null $keyExtractor the key of a message, or null
     *        to fall back to ConsistentHashable
     */
    public function __construct(
        public readonly int $virtualNodes = 100,
        private readonly ?\Closure $keyExtractor = null,
    ) {
        if ($virtualNodes < 1) {
            throw new \InvalidArgumentException("A hash ring needs at least 1 virtual node per routee, got {$virtualNodes}.");
        }
    }

    public function select(mixed $message, array $routees): array
    {
        if ($routees === []) {
            return [];
        }
        $hash = self::hash((string) $this->keyOf($message));
        // Identical arrays compare in constant time, so an unchanged routee set costs nothing.
        if ($this->ringRoutees !== $routees) {
            $this->build($routees);
        }

        return [$this->owners[$this->firstPointAtOrAfter($hash)]];
    }

    /**
     * The key $message is routed by.
     *
     * @throws UnroutableMessageException when it has none
     */
    public function keyOf(mixed $message): string|int
    {
        $key = $this->keyExtractor === null ? null : ($this->keyExtractor)($message);
        if ($key === null && $message instanceof ConsistentHashable) {
            $key = $message->hashKey();
        }
        if ($key === null) {
            throw new UnroutableMessageException(sprintf(
                'A consistent-hashing router cannot route %s: it has no key. Implement %s on the message, or give ConsistentHashingRouting a key extractor that returns a key for it.',
                get_debug_type($message),
                ConsistentHashable::class,
            ));
        }

        return $key;
    }

    /**
     * @param list<ActorRef> $routees
     */
    private function build(array $routees): void
    {
        $nodes = [];
        foreach ($routees as $routee) {
            $path = $routee->path();
            for ($i = 0; $i < $this->virtualNodes; ++$i) {
                $nodes[] = [self::hash($path . '#' . $i), $path, $routee];
            }
        }
        // Ties between hashes are broken by path, so the ring does not depend on routee order.
        usort($nodes, static fn(array $a, array $b): int => [$a[0], $a[1]] <=> [$b[0], $b[1]]);
        $this->points = array_column($nodes, 0);
        $this->owners = array_column($nodes, 2);
        $this->ringRoutees = $routees;
    }

    private function firstPointAtOrAfter(int $hash): int
    {
        $low = 0;
        $high = \count($this->points);
        while ($low < $high) {
            $middle = ($low + $high) >> 1;
            if ($this->points[$middle] < $hash) {
                $low = $middle + 1;
            } else {
                $high = $middle;
            }
        }

        return $low === \count($this->points) ? 0 : $low;
    }

    private static function hash(string $value): int
    {
        // 60 of xxh3's 64 bits: always a non-negative int.
        return (int) hexdec(substr(hash('xxh3', $value), 0, 15));
    }
}
