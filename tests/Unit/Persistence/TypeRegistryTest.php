<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence;

use Nexus\Persistence\Exception\PayloadDecodingException;
use Nexus\Persistence\Exception\PayloadEncodingException;
use Nexus\Persistence\Exception\UnregisteredTypeException;
use Nexus\Persistence\Serialization\TypeRegistry;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Tests\Unit\Persistence\Fixture\Added;
use Nexus\Tests\Unit\Persistence\Fixture\Money;
use Nexus\Tests\Unit\Persistence\Fixture\Paid;
use Nexus\Tests\Unit\Persistence\Fixture\Reset;
use Nexus\Tests\Unit\Persistence\Fixture\Tally;
use Nexus\Tests\Unit\Persistence\Fixture\Unregistered;
use PHPUnit\Framework\TestCase;

final class TypeRegistryTest extends TestCase
{
    public function testEventsAreStoredUnderTheirLogicalNameAsJsonAndComeBackEqual(): void
    {
        $types = (new TypeRegistry())->register(Added::class, 'ledger.added', version: 3);

        $payload = $types->encodeEvent(new Added(5, 'Käse/€'));

        self::assertEquals(new Payload('ledger.added', 3, PayloadFormat::Json, '{"amount":5,"note":"Käse/€"}', true), $payload);
        self::assertStringNotContainsString('Fixture', $payload->data . $payload->name, 'no PHP class name is stored');
        self::assertEquals(new Added(5, 'Käse/€'), $types->decode('ledger.added', 3, PayloadFormat::Json, $payload->data));
    }

    public function testAnOldNameIsReadThroughItsAliasAndUpcastersBringOldVersionsUpToDate(): void
    {
        $types = (new TypeRegistry())
            ->register(Added::class, 'ledger.added', version: 3, aliases: ['ledger.credited'])
            ->upcast('ledger.added', 1, static fn(array $v1): array => ['amount' => $v1['value']])
            ->upcast('ledger.added', 2, static fn(array $v2): array => $v2 + ['note' => 'upcast']);

        self::assertEquals(new Added(7, 'upcast'), $types->decode('ledger.credited', 1, PayloadFormat::Json, '{"value":7}'));
        self::assertEquals(new Added(8, 'upcast'), $types->decode('ledger.added', 2, PayloadFormat::Json, '{"amount":8}'));
        self::assertSame('ledger.added', $types->nameOf(Added::class));
    }

    public function testWhatCannotBeDecodedFailsWithATypedErrorThatSaysWhy(): void
    {
        $types = (new TypeRegistry())->register(Added::class, 'ledger.added', version: 2);

        foreach ([
            ['ledger.gone', 1, '{}', "No type is registered under the name 'ledger.gone'"],
            ['ledger.added', 3, '{"amount":1}', 'written by a newer version'],
            ['ledger.added', 1, '{"amount":1}', 'has no upcaster to version 2'],
            ['ledger.added', 2, '{"amount":', 'not valid JSON'],
            ['ledger.added', 2, '{"amount":1,"colour":"red"}', 'could not be turned into a'],
            ['ledger.added', 2, '5', 'not a JSON object'],
        ] as [$name, $version, $data, $message]) {
            try {
                $types->decode($name, $version, PayloadFormat::Json, $data);
                self::fail("{$name} v{$version} {$data} should not decode.");
            } catch (PayloadDecodingException $e) {
                self::assertStringContainsString($message, $e->getMessage());
            }
        }
    }

    public function testTheRegisteredClassFormatNeverUnserializesAnUnregisteredClass(): void
    {
        $types = (new TypeRegistry())->register(Paid::class, 'bill.paid', format: PayloadFormat::Php)->allow(Money::class);
        $payload = $types->encodeEvent(new Paid(new Money(250, 'EUR'), 'Ada'));
        self::assertSame(PayloadFormat::Php, $payload->format);
        self::assertEquals(new Paid(new Money(250, 'EUR'), 'Ada'), $types->decode('bill.paid', 1, PayloadFormat::Php, $payload->data));

        $strict = (new TypeRegistry())->register(Paid::class, 'bill.paid', format: PayloadFormat::Php);
        try {
            $strict->decode('bill.paid', 1, PayloadFormat::Php, $payload->data);
            self::fail('Money is neither registered nor allowed.');
        } catch (PayloadDecodingException $e) {
            self::assertStringContainsString('not registered or allowed', $e->getMessage());
        }
        $forged = base64_encode(serialize(new Unregistered()));
        $this->expectException(PayloadDecodingException::class);
        $this->expectExceptionMessage('does not hold a');
        $strict->decode('bill.paid', 1, PayloadFormat::Php, $forged);
    }

    public function testJsonNeedsToArrayAndFromArrayForObjectsInside(): void
    {
        $types = new TypeRegistry();
        $types->register(Paid::class, 'bill.paid');
        try {
            $types->encodeEvent(new Paid(new Money(1, 'EUR'), 'Ada'));
            self::fail('JSON cannot bring Money back by itself.');
        } catch (PayloadEncodingException $e) {
            self::assertStringContainsString('toArray/fromArray', $e->getMessage());
        }

        $types = (new TypeRegistry())->register(
            Paid::class,
            'bill.paid',
            toArray: static fn(Paid $p): array => ['cents' => $p->amount->cents, 'currency' => $p->amount->currency, 'by' => $p->by],
            fromArray: static function (array $a): Paid {
                \assert(\is_int($a['cents']) && \is_string($a['currency']) && \is_string($a['by']));

                return new Paid(new Money($a['cents'], $a['currency']), $a['by']);
            },
        );
        $payload = $types->encodeEvent(new Paid(new Money(99, 'USD'), 'Bo'));
        self::assertSame('{"cents":99,"currency":"USD","by":"Bo"}', $payload->data);
        self::assertEquals(new Paid(new Money(99, 'USD'), 'Bo'), $types->decode('bill.paid', 1, PayloadFormat::Json, $payload->data));
    }

    public function testPlainValuesAndRegisteredStatesAreEncodedForSnapshotsAndDurableState(): void
    {
        $types = (new TypeRegistry())->register(Tally::class, 'ledger.tally');

        $int = $types->encode(42);
        self::assertEquals(new Payload(TypeRegistry::VALUE, 1, PayloadFormat::Json, '42', true), $int);
        self::assertSame(42, $types->decode($int->name, $int->version, $int->format, $int->data));
        self::assertSame(['a' => [1.5, null]], $types->decode(TypeRegistry::VALUE, 1, PayloadFormat::Json, $types->encode(['a' => [1.5, null]])->data));
        $tally = $types->encode(new Tally(3, [1, 2]));
        self::assertEquals(new Tally(3, [1, 2]), $types->decode($tally->name, $tally->version, $tally->format, $tally->data));
    }

    public function testWhatCannotBeStoredIsRefusedWithATypedError(): void
    {
        $types = (new TypeRegistry(maxPayloadBytes: 100))->register(Added::class, 'ledger.added');

        foreach ([
            [static fn() => $types->encodeEvent(new Unregistered()), 'is not registered'],
            [static fn() => $types->encodeEvent('incremented'), 'must be an object of a registered class'],
            [static fn() => $types->encodeEvent(new Added(1, str_repeat('x', 200))), 'above the limit of 100'],
            [static fn() => $types->encode(new \stdClass()), 'stdClass is not registered'],
            [static fn() => $types->encode(["\xff"]), 'cannot be written as JSON'],
        ] as [$encode, $message]) {
            try {
                $encode();
                self::fail("Expected a refusal: {$message}");
            } catch (PayloadEncodingException $e) {
                self::assertStringContainsString($message, $e->getMessage());
            }
        }
    }

    public function testAmbiguousRegistrationsAreRefused(): void
    {
        $types = (new TypeRegistry())->register(Added::class, 'ledger.added');

        foreach ([
            static fn() => $types->register(Reset::class, 'ledger.added'),
            static fn() => $types->register(Added::class, 'ledger.other'),
            static fn() => $types->register(Reset::class, 'ledger.reset', aliases: ['ledger.added']),
            static fn() => $types->register(Reset::class, TypeRegistry::VALUE),
            static fn() => $types->upcast('ledger.added', 1, static fn(array $a): array => $a),
            static fn() => $types->upcast('nothing', 1, static fn(array $a): array => $a),
        ] as $i => $register) {
            try {
                $register();
                self::fail("Registration {$i} should have been refused.");
            } catch (UnregisteredTypeException $e) {
                self::assertNotSame('', $e->getMessage());
            }
        }
    }
}
