<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

use Nexus\Http\Response;

/**
 * The outcome of Handshake::negotiate(): either the 101 response (send it with
 * Handshake::serialize(), then hand the socket to a WebSocketConnection built with $subprotocol
 * and $deflate), or an error response (400, 403, 405, 426) to send as any HTTP response.
 */
final readonly class HandshakeResult
{
    public function __construct(
        public Response $response,
        public ?string $subprotocol = null,
        public ?PerMessageDeflate $deflate = null,
    ) {}

    public function isAccepted(): bool
    {
        return $this->response->status === 101;
    }
}
