<?php

declare(strict_types=1);

/*
 * An experiment of issue 14 (docs/performance.md, "Issue 14 after seven passes"): what encoding and
 * decoding a batch of 1,000 world orders costs per order on today's mesh codec path, against
 * "wire form" candidates where a message class declares its fields and crosses as a tuple.
 *
 *   php bench/workers/wireform.php MODE BATCHES
 *
 * MODE is base (make the orders and free them), or PATH-enc / PATH-full (encode only, or encode
 * and decode, checking on the first batch that the orders come back equal) with PATH one of:
 *   T  today: MessageClasses::check(), IgbinaryCodec::encode(), IgbinaryCodec::decode()
 *   A  a tuple [classId, fields...] read by name through a registry, through IgbinaryCodec
 *   B  the fields flattened into ints and strings in ScalarBatch's format 6 (no int share limit)
 *   C  as A, the fields read by a closure bound to the class's scope
 *   D  as C, igbinary.compact_strings off while encoding
 *   N  as C, decoded without the guard (unsafe: a lower bound only)
 * Count instructions with callgrind and the tracing JIT, long run minus short run:
 *   valgrind --tool=callgrind --smc-check=all-non-file php -d opcache.enable_cli=1 -d opcache.jit=tracing \
 *     -d opcache.jit_buffer_size=64M bench/workers/wireform.php C-full 13     (and ... C-full 3)
 * then (difference - the same difference for base) / 10,000 orders.
 */

require dirname(__DIR__, 2) . '/vendor/autoload.php';

use Nexus\Bench\Workers\WorldOrder;
use Nexus\Worker\Codec\IgbinaryCodec;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Codec\ScalarBatch;
use Nexus\Worker\Exception\FrameException;

const PER_BATCH = 1000;
$mode = $argv[1] ?? 'T-full';
$batches = (int) ($argv[2] ?? 2);
[$path, $stage] = explode('-', $mode . '-');

$classes = new MessageClasses();
$classes->register(WorldOrder::class);
$codec = new IgbinaryCodec($classes);

// The wire-form registry: class id => class, class => [id, fields, array fields] (from reflection at registration).
$wireIds = [WorldOrder::class => 1];
$wireClasses = [1 => WorldOrder::class];
$wireFields = [WorldOrder::class => ['customer', 'items', 'tier']];
$wireArrays = [WorldOrder::class => ['items']];
$arity = [1 => 3];
// C: what a class would declare itself (or a closure bound to its scope reads, private fields too).
$readC = Closure::bind(static fn(WorldOrder $o): array => [1, $o->customer, $o->items, $o->tier], null, WorldOrder::class);

$baskets = WorldOrder::baskets();
$tiers = WorldOrder::TIERS;
$shardPaths = [];
for ($s = 0; $s < 8; ++$s) {
    $shardPaths[] = "/user/local-shard-{$s}";
}

/**
 * The sender's walk of an array-of-scalar-tuples field (what check() does for it): no objects, scalars only.
 *
 * @param array<mixed> $rows
 */
function scalarRows(array $rows): int
{
    $size = 5;
    foreach ($rows as $row) {
        if (!\is_array($row)) {
            throw new \InvalidArgumentException('not a row');
        }
        foreach ($row as $v) {
            if (\is_string($v)) {
                $size += \strlen($v) + 14;
            } elseif (\is_int($v) || \is_float($v) || \is_bool($v) || $v === null) {
                $size += 18;
            } else {
                throw new \InvalidArgumentException('Cannot send an object or array inside a wire-form row');
            }
        }
    }
    return $size;
}

/**
 * Format-6 bytes of $values (ScalarBatch's markers, without its int share limit).
 *
 * @param list<mixed> $values
 */
function scalarBytes(array $values): string
{
    $bytes = '';
    $count = \count($values);
    for ($i = 1; $i < $count; ++$i) {
        $value = $values[$i];
        if (\is_string($value)) {
            $length = \strlen($value);
            $bytes .= $length < 0xFC ? \chr($length) . $value : "\xFC" . pack('N', $length) . $value;
        } elseif (\is_int($value) && $value >= 0 && $value <= 0xFFFF) {
            $bytes .= "\xFE" . \chr($value >> 8) . \chr($value & 0xFF);
        } elseif (\is_int($value)) {
            $text = (string) $value;
            $bytes .= "\xFD" . \chr(\strlen($text)) . $text;
        } else {
            return '';
        }
    }
    return $bytes;
}

$check = null;
$total = 0;
for ($b = 0; $b < $batches; ++$b) {
    $orders = [];
    $base = $b * PER_BATCH;
    for ($k = 0; $k < PER_BATCH; ++$k) {
        $i = $base + $k;
        $orders[] = new WorldOrder("c{$i}", $baskets[$i & 63], $tiers[$i & 3]);
    }
    $received = [];
    if ($path === 'T') {
        // Sender: Mesh::send() checks each message, PeerLink::enqueue() appends it, writeSegment() puts the table, IgbinaryCodec::encode().
        $segment = [[], 0, '/user/driver'];
        $objects = 0;
        $bytesEstimate = 0;
        foreach ($orders as $k => $order) {
            $classes->found = 0;
            $bytesEstimate += $classes->check($order);
            $objects |= $classes->found;
            $segment[] = $shardPaths[$k & 7];
            $segment[] = $order;
        }
        $segment[0] = $codec->classTable();
        $format = 0;
        $bytes = $codec->encode($segment, $objects, $format);
        unset($segment);
        if ($stage === 'full') {
            // Receiver: InboundLink::deliver() -> codec->decode(); Mesh::deliverBatch() walks it.
            $batch = $codec->decode($format, $bytes);
            /** @var list<mixed> $batch */
            $count = \count($batch);
            for ($i = 1; $i + 1 < $count; $i += 2) {
                if (!\is_string($batch[$i])) {
                    continue;
                }
                $received[] = $batch[$i + 1];
            }
            unset($batch);
        }
    } elseif ($path === 'A' || $path === 'C' || $path === 'N' || $path === 'D') {
        // A: generic (fields by name from the registry); C: a per-class reader; then one igbinary batch of tuples.
        // N: as C without the guard on decode (a lower bound, not safe).
        $segment = [[], 0, '/user/driver'];
        $bytesEstimate = 0;
        foreach ($orders as $k => $order) {
            $class = $order::class;
            if ($path === 'A') {
                $tuple = [$wireIds[$class]];
                foreach ($wireFields[$class] as $field) {
                    $tuple[] = $order->{$field};
                }
                foreach ($wireArrays[$class] as $field) {
                    $bytesEstimate += scalarRows($order->{$field});
                }
            } else {
                $tuple = $readC($order);
                $bytesEstimate += scalarRows($tuple[2]);
            }
            $segment[] = $shardPaths[$k & 7];
            $segment[] = $tuple;
        }
        $format = 0;
        if ($path === 'D') {
            ini_set('igbinary.compact_strings', '0'); // D: C without igbinary's string table (no class names to share)
        }
        $bytes = $codec->encode($segment, 0, $format); // objects = 0: no class table; the real codec (guard when >= 64 KiB)
        if ($path === 'D') {
            ini_set('igbinary.compact_strings', '1');
        }
        unset($segment);
        if ($stage === 'full') {
            if ($path === 'N') {
                $batch = igbinary_unserialize($bytes);
            } else {
                $batch = $codec->decode($format, $bytes);
            }
            /** @var list<mixed> $batch */
            $count = \count($batch);
            for ($i = 1; $i + 1 < $count; $i += 2) {
                if (!\is_string($batch[$i])) {
                    continue;
                }
                /** @var array{0: int, 1: string, 2: list<array{float, int}>, 3: string} $tuple a decoded tuple; new checks its fields below */
                $tuple = $batch[$i + 1];
                $id = $tuple[0];
                $class = $wireClasses[$id] ?? throw new FrameException("Unknown wire class {$id}");
                unset($tuple[0]);
                try {
                    $received[] = new $class(...$tuple);
                } catch (\TypeError | \ArgumentCountError $e) {
                    throw new FrameException("A {$class} from another worker does not fit its fields: " . $e->getMessage());
                }
            }
            unset($batch);
        }
    } elseif ($path === 'B') {
        // B: each order flattened into ints and strings (floats as their shortest text) in format 6.
        $values = [[], 0, '/user/driver'];
        $bytesEstimate = 0;
        foreach ($orders as $k => $order) {
            $values[] = $shardPaths[$k & 7];
            $values[] = 1;
            $values[] = $order->customer;
            $values[] = $order->tier;
            $items = $order->items;
            $values[] = \count($items);
            foreach ($items as [$price, $qty]) {
                $values[] = (string) $price;
                $values[] = $qty;
            }
        }
        $bytes = scalarBytes($values);
        unset($values);
        $format = 6;
        if ($stage === 'full') {
            $flat = ScalarBatch::decode($bytes);
            $count = \count($flat);
            $i = 1;
            while ($i < $count) {
                $value = $flat[$i];
                if (!\is_string($value)) { // sender run
                    $i += 2;
                    continue;
                }
                $id = $flat[$i + 1];
                if ($id !== 1) {
                    throw new FrameException('Unknown wire class');
                }
                $lines = $flat[$i + 4];
                if (!\is_int($lines) || $lines > 64) {
                    throw new FrameException('bad line count');
                }
                $items = [];
                $j = $i + 5;
                for ($l = 0; $l < $lines; ++$l, $j += 2) {
                    $text = $flat[$j];
                    if (!\is_string($text) || (string) ($price = (float) $text) !== $text || !\is_int($flat[$j + 1])) {
                        throw new FrameException('A WorldOrder line from another worker is not (float, int)');
                    }
                    $items[] = [$price, $flat[$j + 1]];
                }
                $customer = $flat[$i + 2];
                $tier = $flat[$i + 3];
                if (!\is_string($customer) || !\is_string($tier)) {
                    throw new FrameException('A WorldOrder from another worker has a customer or tier that is not a string');
                }
                try {
                    $received[] = new WorldOrder($customer, $items, $tier);
                } catch (\TypeError $e) {
                    throw new FrameException('A WorldOrder from another worker does not fit its fields: ' . $e->getMessage());
                }
                $i = $j;
            }
            unset($flat);
        }
    } else {
        $bytes = '';
    }
    if ($b === 0) {
        $check = [$orders, $received, \strlen($bytes), $format ?? 0];
    }
    $total += \count($received) + \strlen($bytes);
    unset($orders, $received, $bytes);
}
if ($check === null) {
    fwrite(STDERR, "Give at least one batch.\n");
    exit(2);
}
/** @var array{list<WorldOrder>, list<mixed>, int, int} $check */
[$orders, $received, $length, $format] = $check;
if ($stage === 'full') {
    $ok = \count($received) === \count($orders);
    foreach ($orders as $k => $order) {
        $r = $received[$k] ?? null;
        if (!$r instanceof WorldOrder || $r->customer !== $order->customer || $r->tier !== $order->tier || $r->items !== $order->items) {
            $ok = false;
            break;
        }
    }
    fprintf(STDERR, "%s: round trip %s, %d bytes per batch of %d, format %d\n", $mode, $ok ? 'equal' : 'NOT EQUAL', $length, PER_BATCH, $format);
    if (!$ok) {
        exit(1);
    }
} else {
    fprintf(STDERR, "%s: %d bytes per batch, format %d\n", $mode, $length, $format);
}
