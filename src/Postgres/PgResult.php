<?php

declare(strict_types=1);

namespace Nexus\Postgres;

use PgSql\Result;

/**
 * The rows of one statement, typed by column type (see docs/postgres.md): int2/int4/int8/oid to
 * int, float4/float8 to float, bool to bool, json/jsonb decoded to arrays, NULL to null, numeric
 * and everything else as the server's text.
 *
 * Rows are fetched and converted on first use, so a statement whose rows nobody reads costs no
 * conversion.
 *
 * @implements \IteratorAggregate<int, array<string, mixed>>
 */
final class PgResult implements \IteratorAggregate, \Countable
{
    /** @var list<array<string, mixed>>|null */
    private ?array $rows = null;
    private ?Result $result;
    /** @var list<list<string|null>>|null the rows as rawRows() fetched them */
    private ?array $raw = null;
    /** @var array<string, int> with $raw: the type oid of each column, by name */
    private array $oids = [];
    /** @var int<0, max> */
    private readonly int $count;
    private readonly int $affected;

    public function __construct(Result $result)
    {
        $this->result = $result;
        $this->count = max(0, pg_num_rows($result));
        $this->affected = pg_affected_rows($result);
    }

    /**
     * @return list<array<string, mixed>>
     */
    public function rows(): array
    {
        return $this->rows ?? $this->fetch();
    }

    /**
     * The rows as the server sent them, for a caller that converts its own columns on a hot path:
     * lists of the columns' text in the order of the statement (NULL as null), no conversion.
     * Call it first: rows() and the others still work afterwards (they convert then), but once
     * they have converted the rows, the text is gone and rawRows() throws a LogicException.
     *
     * @return list<list<string|null>>
     */
    public function rawRows(): array
    {
        if ($this->raw !== null) {
            return $this->raw;
        }
        if ($this->rows !== null && $this->count > 0) {
            throw new \LogicException('PgResult::rawRows() must come before rows(), first(), column(), scalar() or iteration, which convert the rows and drop their text.');
        }
        $result = $this->result;
        if ($result === null || $this->count === 0) {
            $this->result = null;
            $this->rows = [];

            return $this->raw = [];
        }
        $this->oids = self::oids($result);
        /** @var list<list<string|null>> $raw */
        $raw = pg_fetch_all($result, \PGSQL_NUM);
        pg_free_result($result);
        $this->result = null;

        return $this->raw = $raw;
    }

    /**
     * @return array<string, mixed>|null
     */
    public function first(): ?array
    {
        return ($this->rows ?? $this->fetch())[0] ?? null;
    }

    /**
     * The values of one column (by name, or by position from 0).
     *
     * @return list<mixed>
     */
    public function column(string|int $column = 0): array
    {
        $rows = $this->rows ?? $this->fetch();
        if ($rows === []) {
            return [];
        }
        $name = \is_int($column) ? (array_keys($rows[0])[$column] ?? null) : $column;
        if ($name === null || !\array_key_exists($name, $rows[0])) {
            throw new \OutOfRangeException(sprintf('The result has no column %s; its columns are: %s.', var_export($column, true), implode(', ', array_keys($rows[0]))));
        }

        return array_column($rows, $name);
    }

    /**
     * The first column of the first row, or null when there is no row.
     */
    public function scalar(): mixed
    {
        $row = ($this->rows ?? $this->fetch())[0] ?? null;

        return $row === null ? null : $row[array_key_first($row)];
    }

    /**
     * Rows inserted, updated or deleted (or returned by a SELECT).
     */
    public function affectedRows(): int
    {
        return $this->affected;
    }

    public function count(): int
    {
        return $this->count;
    }

    /**
     * @return \ArrayIterator<int, array<string, mixed>>
     */
    public function getIterator(): \ArrayIterator
    {
        return new \ArrayIterator($this->rows ?? $this->fetch());
    }

    /**
     * @return list<array<string, mixed>>
     */
    private function fetch(): array
    {
        if ($this->raw !== null) {
            // rawRows() took them: name and convert them now.
            $names = array_keys($this->oids);
            $rows = [];
            foreach ($this->raw as $row) {
                $rows[] = array_combine($names, $row);
            }

            return $this->rows = PgTypes::convert($rows, PgTypes::plan($this->oids));
        }
        $result = $this->result;
        if ($result === null || $this->count === 0) {
            $this->result = null;

            return $this->rows = [];
        }
        $oids = self::oids($result);
        /** @var list<array<string, string|null>> $raw */
        $raw = pg_fetch_all($result, \PGSQL_ASSOC);
        pg_free_result($result);
        $this->result = null;

        return $this->rows = PgTypes::convert($raw, PgTypes::plan($oids));
    }

    /**
     * @return array<string, int> the type oid of each column, by name
     */
    private static function oids(Result $result): array
    {
        $fields = pg_num_fields($result);
        $oids = [];
        for ($i = 0; $i < $fields; ++$i) {
            $oids[pg_field_name($result, $i)] = (int) pg_field_type_oid($result, $i);
        }

        return $oids;
    }
}
