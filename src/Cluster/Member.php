<?php

declare(strict_types=1);

namespace Nexus\Cluster;

use Nexus\Worker\Slots;

/**
 * One node of the cluster as its membership record says: its name (--node), its incarnation
 * (the etcd revision that registered it: a node that restarts is a new member with a new one, and
 * its slots are new slots), where each of its workers accepts links (tcp://host:port, by worker
 * number), and the identity of the store it uses.
 *
 * $leaving: it is handing its entities off before it leaves (placement gives it nothing).
 * $applied: it has applied every change of membership up to this revision (see View::settled()).
 * $key is its record's key in the membership store.
 */
final readonly class Member
{
    /**
     * @param list<string> $workers
     */
    public function __construct(
        public string $name,
        public int $incarnation,
        public array $workers,
        public string $store,
        public string $key = '',
        public bool $leaving = false,
        public int $leavingSince = 0,
        public int $applied = 0,
    ) {}

    /**
     * The slots of its workers.
     *
     * @return list<int>
     */
    public function slots(): array
    {
        $slots = [];
        foreach ($this->workers as $worker => $_) {
            $slots[] = Slots::id($this->incarnation, $worker);
        }

        return $slots;
    }

    /**
     * The record as stored (the incarnation, leaving and applied marks are kept apart).
     */
    public function encode(): string
    {
        return json_encode(['name' => $this->name, 'workers' => $this->workers, 'store' => $this->store], \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES);
    }

    /**
     * A record read back; null when it is not one.
     */
    public static function decode(string $key, string $json, int $incarnation): ?self
    {
        $data = json_decode($json, true);
        if (!\is_array($data) || !\is_string($data['name'] ?? null) || !\is_string($data['store'] ?? null) || !\is_array($data['workers'] ?? null)) {
            return null;
        }
        $workers = [];
        foreach ($data['workers'] as $address) {
            if (!\is_string($address) || !str_starts_with($address, 'tcp://')) {
                return null;
            }
            $workers[] = $address;
        }
        if ($workers === [] || \count($workers) > Slots::WORKERS || $incarnation <= 0) {
            return null;
        }

        return new self($data['name'], $incarnation, $workers, $data['store'], $key);
    }

    public function with(bool $leaving, int $leavingSince, int $applied): self
    {
        return new self($this->name, $this->incarnation, $this->workers, $this->store, $this->key, $leaving, $leavingSince, $applied);
    }

    public function describe(): string
    {
        return "{$this->name} (incarnation {$this->incarnation})";
    }
}
