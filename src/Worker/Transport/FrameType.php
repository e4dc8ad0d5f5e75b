<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

/**
 * The kinds of frame on a link between two workers. Every frame is a 4-byte big-endian payload
 * length, one type byte, then the payload. The client (the worker that opened the link) sends
 * Hello, Proof and Batch; the server sends Challenge, Ack and Goodbye.
 */
enum FrameType: int
{
    /** First frame of a link: "nexus1 <role> <worker id> <codec> <client nonce, hex>" (see Handshake). */
    case Hello = 1;
    /** An 8-byte sequence number, the wire format byte, then a codec-encoded batch (see MessageCodec). */
    case Batch = 2;
    /** The receiver delivered every batch up to this 8-byte sequence number into mailboxes. */
    case Ack = 3;
    /** The server's answer to Hello: "<worker id> <server nonce, hex> <server proof, hex>". */
    case Challenge = 4;
    /** The client's proof, hex: the link is open once the server has checked it. */
    case Proof = 5;
    /** The server is leaving: send what comes next elsewhere once what was sent is acknowledged. */
    case Goodbye = 6;
}
