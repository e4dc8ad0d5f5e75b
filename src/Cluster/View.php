<?php

declare(strict_types=1);

namespace Nexus\Cluster;

use Nexus\Worker\Slots;

/**
 * The members of the cluster as one node sees them at an etcd revision. Every node that has seen
 * the same changes computes the same placement from it (Placement is a pure function of the view's
 * slots and a key), so they agree without talking.
 *
 * $revision grows with every change of membership this node has seen (a join, a member marked
 * leaving, a member gone): an activation placed under it writes with it as its epoch, so a stale
 * owner's writes are refused once a newer owner has written.
 *
 * A change moves entities only away from members that stay (to a member that joined, or from one
 * that is leaving); a member that is gone (its lease expired) had stopped hosting already. So a
 * node starts entities newly placed on it only once the view is settled(): every member has
 * applied every join and leave of the view, that is has stopped what no longer belongs to it.
 */
final readonly class View
{
    /** @var list<int> the slots placement uses: those of the members not leaving */
    public array $slots;

    /**
     * @param list<Member> $members in incarnation order
     */
    public function __construct(
        public int $revision,
        public array $members,
    ) {
        $slots = [];
        foreach ($members as $member) {
            if (!$member->leaving) {
                array_push($slots, ...$member->slots());
            }
        }
        $this->slots = $slots;
    }

    /**
     * The view of a single machine (a pool without a cluster): node 0 with $workers slots.
     */
    public static function single(int $workers): self
    {
        return new self(0, [new Member('local', 0, array_fill(0, $workers, 'tcp://0.0.0.0:0'), '')]);
    }

    /**
     * The revision every member must have applied before entities start under this view: the
     * latest join or leave among its members.
     */
    public function barrier(): int
    {
        $barrier = 0;
        foreach ($this->members as $member) {
            $barrier = max($barrier, $member->incarnation, $member->leavingSince);
        }

        return $barrier;
    }

    public function settled(): bool
    {
        $barrier = $this->barrier();
        foreach ($this->members as $member) {
            if ($member->applied < $barrier) {
                return false;
            }
        }

        return true;
    }

    public function member(int $incarnation): ?Member
    {
        foreach ($this->members as $member) {
            if ($member->incarnation === $incarnation) {
                return $member;
            }
        }

        return null;
    }

    public function hasSlot(int $slot): bool
    {
        $member = $this->member(Slots::node($slot));

        return $member !== null && Slots::worker($slot) < \count($member->workers);
    }

    /**
     * Where each slot of the members accepts links.
     *
     * @return array<int, string>
     */
    public function addresses(): array
    {
        $addresses = [];
        foreach ($this->members as $member) {
            foreach ($member->workers as $worker => $address) {
                $addresses[Slots::id($member->incarnation, $worker)] = $address;
            }
        }

        return $addresses;
    }

    /**
     * The view as a line of JSON (the master sends it to its workers).
     */
    public function encode(): string
    {
        $members = [];
        foreach ($this->members as $member) {
            $members[] = [$member->name, $member->incarnation, $member->workers, $member->store, $member->leaving, $member->leavingSince, $member->applied];
        }

        return json_encode([$this->revision, $members], \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES);
    }

    public static function decode(string $json): ?self
    {
        $data = json_decode($json, true);
        if (!\is_array($data) || !\is_int($data[0] ?? null) || !\is_array($data[1] ?? null)) {
            return null;
        }
        $members = [];
        foreach ($data[1] as $m) {
            if (!\is_array($m) || \count($m) !== 7 || !\is_string($m[0]) || !\is_int($m[1]) || !\is_array($m[2]) || !\is_string($m[3]) || !\is_bool($m[4]) || !\is_int($m[5]) || !\is_int($m[6])) {
                return null;
            }
            $workers = array_values(array_filter($m[2], 'is_string'));
            $members[] = new Member($m[0], $m[1], $workers, $m[3], '', $m[4], $m[5], $m[6]);
        }

        return new self($data[0], $members);
    }

    /**
     * For logs: "revision 57: a (incarnation 12), b (incarnation 40, leaving)".
     */
    public function describe(): string
    {
        $members = array_map(static fn(Member $m): string => $m->name . ' (incarnation ' . $m->incarnation . ($m->leaving ? ', leaving' : '') . ')', $this->members);

        return "revision {$this->revision}: " . ($members === [] ? 'no members' : implode(', ', $members));
    }
}
