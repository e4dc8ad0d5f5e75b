<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

/**
 * What an operation of the campaign changes, and so where the checker looks for it afterwards.
 */
enum OperationKind: string
{
    /** POST /counter/{name}/increment: a counter actor of the demo app */
    case Counter = 'counter';
    /** POST /pg/{id}: a row in PostgreSQL */
    case Postgres = 'postgres';
    /** POST /redis/{id}: a member of a Redis set */
    case Redis = 'redis';

    public function request(string $key): string
    {
        $path = match ($this) {
            self::Counter => "/counter/{$key}/increment",
            self::Postgres => "/pg/{$key}",
            self::Redis => "/redis/{$key}",
        };

        return "POST {$path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n";
    }
}
