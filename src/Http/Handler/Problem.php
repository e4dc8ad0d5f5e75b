<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

use Nexus\Http\Response;
use Nexus\Http\Status;

/** Builds `application/problem+json` responses (RFC 9457). */
final class Problem
{
    /**
     * @param array<string, mixed> $extensions extra members; they cannot replace the standard ones
     * @param array<string, string> $headers
     */
    public static function response(int $status, string $detail, ?string $instance = null, array $extensions = [], array $headers = []): Response
    {
        $problem = ['type' => 'about:blank', 'title' => Status::reason($status), 'status' => $status, 'detail' => $detail];
        if ($instance !== null && $instance !== '') {
            $problem['instance'] = $instance;
        }
        $body = json_encode(
            $problem + $extensions,
            \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE | \JSON_INVALID_UTF8_SUBSTITUTE | \JSON_PARTIAL_OUTPUT_ON_ERROR,
        );

        return new Response($status, ['Content-Type' => 'application/problem+json'] + $headers, (string) $body);
    }
}
