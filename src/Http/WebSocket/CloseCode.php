<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * Close status codes (RFC 6455 §7.4, the IANA registry) and which of them may appear in a close
 * frame. 1005, 1006 and 1015 are never sent: they only report, to the local side, that no code
 * came (1005) or that the connection ended without a close frame (1006).
 */
final class CloseCode
{
    public const NORMAL = 1000;
    public const GOING_AWAY = 1001;
    public const PROTOCOL_ERROR = 1002;
    public const UNSUPPORTED_DATA = 1003;
    /** Reported locally when the peer's close frame had no code; never sent. */
    public const NO_STATUS = 1005;
    /** Reported locally when the connection ended without a close frame; never sent. */
    public const ABNORMAL = 1006;
    public const INVALID_PAYLOAD = 1007;
    public const POLICY_VIOLATION = 1008;
    public const MESSAGE_TOO_BIG = 1009;
    public const MANDATORY_EXTENSION = 1010;
    public const INTERNAL_ERROR = 1011;
    public const SERVICE_RESTART = 1012;
    public const TRY_AGAIN_LATER = 1013;
    public const BAD_GATEWAY = 1014;

    private function __construct() {}

    /**
     * Whether $code may travel in a close frame: 1000-1003, 1007-1014 (defined by the RFC and
     * registered with IANA), and 3000-4999 (libraries, frameworks and applications). A close
     * frame carrying any other code fails the connection with 1002.
     */
    public static function isValidOnWire(int $code): bool
    {
        return ($code >= 1000 && $code <= 1003)
            || ($code >= 1007 && $code <= 1014)
            || ($code >= 3000 && $code <= 4999);
    }
}
