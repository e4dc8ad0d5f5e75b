<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

use Nexus\Http\WebSocket\Exception\ProtocolException;

/**
 * Incremental RFC 6455 frame decoder: feed() bytes as they come, then next() until it returns
 * null. The hot path of every WebSocket connection.
 *
 * It reads with an offset into one buffer and compacts only the unread remainder (less than a
 * frame) on the next feed(), so decoding is linear in the bytes received. A frame whose payload is
 * bigger than 64 KiB and still incomplete is gathered as a list of chunks and joined once, so a
 * large frame is never copied chunk by chunk.
 *
 * Everything one frame can get wrong is rejected here with a ProtocolException carrying the close
 * code, before its payload is read: RSV2/RSV3 set, RSV1 without permessage-deflate or on a control
 * or continuation frame, a reserved opcode, a missing (server) or unexpected (client) mask, a
 * fragmented control frame or one over 125 bytes, a length not in its minimal form or with the
 * top bit set (1002), and a payload over $maxPayload (1009). It therefore holds at most one
 * frame header plus $maxPayload bytes, plus what the last read brought beyond them.
 *
 * Two ways to read: next() returns a Frame; nextPayload() returns the payload alone and leaves
 * the frame's opcode, FIN and RSV1 bits in $opcode, $fin and $rsv1 until the next call (the
 * connection's hot path: no object per frame).
 */
final class FrameDecoder
{
    private const GATHER_ABOVE = 65_536;

    private string $buffer = '';
    private int $offset = 0;
    /** When gathering a large frame: the bytes it needs in all (header included), else 0. */
    private int $need = 0;
    private int $have = 0;
    /** @var list<string> */
    private array $parts = [];

    /** The last frame nextPayload() returned: its opcode, FIN bit and RSV1 bit. */
    public int $opcode = 0;
    public bool $fin = false;
    public bool $rsv1 = false;

    public function __construct(
        private readonly bool $expectMasked,
        private readonly int $maxPayload,
        private readonly bool $allowRsv1 = false,
    ) {}

    public function feed(string $bytes): void
    {
        if ($this->need > 0) {
            $this->parts[] = $bytes;
            $this->have += \strlen($bytes);
            if ($this->have >= $this->need) {
                $this->buffer = implode('', $this->parts);
                $this->parts = [];
                $this->offset = $this->need = $this->have = 0;
            }

            return;
        }
        if ($this->offset === 0) {
            $this->buffer .= $bytes;
        } elseif ($this->offset >= \strlen($this->buffer)) {
            $this->buffer = $bytes;
            $this->offset = 0;
        } else {
            $this->buffer = substr($this->buffer, $this->offset) . $bytes;
            $this->offset = 0;
        }
    }

    /**
     * The next complete frame, or null when more bytes are needed.
     *
     * @throws ProtocolException when the frame breaks the protocol or a limit
     */
    public function next(): ?Frame
    {
        $payload = $this->nextPayload();

        return $payload === null ? null : new Frame($this->opcode, $this->fin, $this->rsv1, $payload);
    }

    /**
     * The payload of the next complete frame (unmasked), or null when more bytes are needed; the
     * frame's opcode, FIN and RSV1 bits are in $opcode, $fin and $rsv1 until the next call.
     *
     * @throws ProtocolException when the frame breaks the protocol or a limit
     */
    public function nextPayload(): ?string
    {
        if ($this->need > 0) {
            return null;
        }
        $buffer = $this->buffer;
        $at = $this->offset;
        $available = \strlen($buffer) - $at;
        if ($available < 2) {
            return null;
        }
        $b0 = \ord($buffer[$at]);
        $b1 = \ord($buffer[$at + 1]);
        $opcode = $b0 & 0x0F;
        if (($b0 & 0x70) !== 0) {
            $this->checkReservedBits($b0, $opcode);
        }
        if ($opcode > 0x2 && ($opcode < 0x8 || $opcode > 0xA)) {
            throw new ProtocolException(CloseCode::PROTOCOL_ERROR, "Reserved opcode {$opcode}.");
        }
        $masked = ($b1 & 0x80) !== 0;
        if ($masked !== $this->expectMasked) {
            throw new ProtocolException(CloseCode::PROTOCOL_ERROR, $masked ? 'A server must not mask its frames.' : 'A client must mask its frames.');
        }
        $fin = ($b0 & 0x80) !== 0;
        $length = $b1 & 0x7F;
        if ($opcode >= 0x8 && (!$fin || $length > 125)) {
            throw new ProtocolException(CloseCode::PROTOCOL_ERROR, $fin ? 'A control frame carries at most 125 bytes.' : 'A control frame must not be fragmented.');
        }
        $header = 2;
        if ($length === 126) {
            if ($available < 4) {
                return null;
            }
            $length = (\ord($buffer[$at + 2]) << 8) | \ord($buffer[$at + 3]);
            $header = 4;
            if ($length < 126) {
                throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'A frame length must be in its minimal form.');
            }
        } elseif ($length === 127) {
            if ($available < 10) {
                return null;
            }
            if ((\ord($buffer[$at + 2]) & 0x80) !== 0) {
                throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'The most significant bit of a 64-bit frame length must be 0.');
            }
            /** @var array{1: int} $unpacked */
            $unpacked = unpack('J', $buffer, $at + 2);
            $length = $unpacked[1];
            $header = 10;
            if ($length < 65_536) {
                throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'A frame length must be in its minimal form.');
            }
        }
        if ($length > $this->maxPayload) {
            throw new ProtocolException(CloseCode::MESSAGE_TOO_BIG, "A frame of {$length} bytes is over the limit of {$this->maxPayload}.");
        }
        $start = $at + $header + ($masked ? 4 : 0);
        $end = $start + $length;
        if ($end > \strlen($buffer)) {
            if ($length > self::GATHER_ABOVE) {
                // Gather the rest of this large frame as a list of chunks; feed() joins it once.
                $this->parts = [$at === 0 ? $buffer : substr($buffer, $at)];
                $this->have = $available;
                $this->need = $end - $at;
                $this->buffer = '';
                $this->offset = 0;
            }

            return null;
        }
        $this->offset = $end;
        $this->opcode = $opcode;
        $this->fin = $fin;
        $this->rsv1 = ($b0 & 0x40) !== 0;
        if ($length === 0) {
            return '';
        }
        if ($masked) {
            return substr($buffer, $start, $length) ^ str_repeat(substr($buffer, $start - 4, 4), ($length >> 2) + 1);
        }

        return substr($buffer, $start, $length);
    }

    /**
     * Bytes received and not yet returned as frames.
     */
    public function bufferedBytes(): int
    {
        return $this->need > 0 ? $this->have : \strlen($this->buffer) - $this->offset;
    }

    private function checkReservedBits(int $b0, int $opcode): void
    {
        if (($b0 & 0x30) !== 0) {
            throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'RSV2 and RSV3 must be 0: no extension using them was negotiated.');
        }
        if (!$this->allowRsv1) {
            throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'RSV1 must be 0: permessage-deflate was not negotiated.');
        }
        if ($opcode === 0x0 || $opcode >= 0x8) {
            throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'RSV1 may only be set on the first frame of a data message.');
        }
    }
}
