<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Postgres;

use Nexus\Postgres\PgTypes;
use PHPUnit\Framework\TestCase;

final class PgTypesTest extends TestCase
{
    public function testConvertsByColumnTypeOid(): void
    {
        $plan = PgTypes::plan([
            'i2' => PgTypes::INT2, 'i4' => PgTypes::INT4, 'i8' => PgTypes::INT8, 'oid' => PgTypes::OID,
            'f4' => PgTypes::FLOAT4, 'f8' => PgTypes::FLOAT8, 'num' => PgTypes::NUMERIC, 'b' => PgTypes::BOOL,
            'j' => PgTypes::JSON, 'jb' => PgTypes::JSONB, 'text' => 25, 'ts' => 1114,
        ]);
        $rows = PgTypes::convert([[
            'i2' => '-3', 'i4' => '42', 'i8' => '9223372036854775807', 'oid' => '4294967295',
            'f4' => '1.5', 'f8' => '-2.25e-3', 'num' => '12345678901234567890.123', 'b' => 't',
            'j' => '{"a":[1,2]}', 'jb' => '[true,null]', 'text' => '007', 'ts' => '2024-01-02 03:04:05',
        ]], $plan);

        self::assertSame([[
            'i2' => -3, 'i4' => 42, 'i8' => \PHP_INT_MAX, 'oid' => 4294967295,
            'f4' => 1.5, 'f8' => -0.00225, 'num' => '12345678901234567890.123', 'b' => true,
            'j' => ['a' => [1, 2]], 'jb' => [true, null], 'text' => '007', 'ts' => '2024-01-02 03:04:05',
        ]], $rows);
    }

    public function testNullStaysNullInEveryType(): void
    {
        $plan = PgTypes::plan(['i' => PgTypes::INT4, 'f' => PgTypes::FLOAT8, 'b' => PgTypes::BOOL, 'j' => PgTypes::JSONB]);

        self::assertSame([['i' => null, 'f' => null, 'b' => false, 'j' => null]], PgTypes::convert([['i' => null, 'f' => null, 'b' => 'f', 'j' => null]], $plan));
    }

    public function testTextOnlyResultsAreLeftAlone(): void
    {
        self::assertNull(PgTypes::plan(['a' => 25, 'b' => 1043, 'n' => PgTypes::NUMERIC]));
        $rows = [['a' => 'x', 'b' => null, 'n' => '1.10']];
        self::assertSame($rows, PgTypes::convert($rows, null));
    }

    public function testSpecialFloats(): void
    {
        self::assertNan(PgTypes::float('NaN'));
        self::assertSame(\INF, PgTypes::float('Infinity'));
        self::assertSame(-\INF, PgTypes::float('-Infinity'));
        self::assertSame(0.1, PgTypes::float('0.1'));
    }
}
