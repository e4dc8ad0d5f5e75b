<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * Which end of the connection this side is. A client masks every frame it sends and requires
 * unmasked frames; a server requires masked frames and sends unmasked ones (RFC 6455 §5.1).
 */
enum Role
{
    case Server;
    case Client;
}
