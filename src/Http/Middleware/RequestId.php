<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/**
 * Gives each request an id: the incoming header when it is a sane token (visible ASCII, at most
 * 128 bytes) and trusted, else "<per-process random prefix>-<counter>". The id goes into
 * $request->attributes['request_id'] and onto the response header.
 */
final class RequestId implements Middleware
{
    public const ATTRIBUTE = 'request_id';

    private readonly string $prefix;
    private int $counter = 0;

    public function __construct(
        private readonly string $header = 'X-Request-Id',
        private readonly bool $trustIncoming = true,
    ) {
        $this->prefix = bin2hex(random_bytes(6));
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        $id = $this->trustIncoming ? $request->header($this->header) : null;
        if ($id === null || $id === '' || \strlen($id) > 128 || preg_match('/^[\x21-\x7E]+$/D', $id) !== 1) {
            $id = $this->prefix . '-' . ++$this->counter;
        }
        $request->attributes[self::ATTRIBUTE] = $id;

        return $next->handle($request)->withHeader($this->header, $id);
    }
}
