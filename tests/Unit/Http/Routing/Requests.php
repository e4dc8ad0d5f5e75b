<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Routing;

use Nexus\Http\Request;
use Nexus\Http\Response;

/** Builds requests for the application-layer tests, without a socket or parser. */
final class Requests
{
    /** @param array<string, string> $headers */
    public static function make(string $method, string $target, array $headers = [], string $body = ''): Request
    {
        $question = strpos($target, '?');
        $path = $question === false ? $target : substr($target, 0, $question);
        $query = $question === false ? '' : substr($target, $question + 1);
        $fields = ['host' => ['example.test']];
        foreach ($headers as $name => $value) {
            $fields[strtolower($name)] = [$value];
        }

        return new Request($method, $target, $path, $query, '1.1', $fields, $body);
    }

    /** @return array<string, mixed> */
    public static function json(Response $response): array
    {
        $data = json_decode($response->body, true, 512, \JSON_THROW_ON_ERROR);
        if (!\is_array($data)) {
            throw new \UnexpectedValueException('Expected a JSON object, got: ' . $response->body);
        }
        $result = [];
        foreach ($data as $key => $value) {
            $result[(string) $key] = $value;
        }

        return $result;
    }
}
