<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

/**
 * The kinds of frame on a link between two workers. Every frame is a 4-byte big-endian payload
 * length, one type byte, then the payload.
 */
enum FrameType: int
{
    /** First frame of a link: "<worker id> <codec> <secret>". */
    case Hello = 1;
    /** An 8-byte sequence number, then a codec-encoded flat list of (path, message, sender worker, sender path). */
    case Batch = 2;
    /** The receiver delivered every batch up to this 8-byte sequence number into mailboxes. */
    case Ack = 3;
}
