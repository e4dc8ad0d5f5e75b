<?php

declare(strict_types=1);

namespace Nexus\Redis\Protocol;

/**
 * The bounds RespParser enforces on what a server sends (see RedisConfig for their defaults).
 */
enum RespLimit: string
{
    /** arrays nested deeper than this (a deep reply would also crash PHP when it is freed) */
    case Depth = 'maxReplyDepth';
    /** elements in one reply, counted at every level as arrays are announced */
    case Elements = 'maxReplyElements';
    /** bytes of one bulk string, as announced in its header (Redis's own proto-max-bulk-len) */
    case BulkLength = 'maxBulkLength';
    /** bytes of one line (a simple string, an error, a header) without its CRLF */
    case LineLength = 'maxLineLength';
}
