<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

use Nexus\Http\WebSocket\Deflate\MessageInflater;
use Nexus\Http\WebSocket\Exception\ProtocolException;

/**
 * Joins the data frames of fragmented or compressed messages (RFC 6455 §5.4, RFC 7692 §6), with
 * the checks that span frames: a continuation with no message in progress and a new message
 * before the last one ended (1002), text that is not UTF-8 even across fragment boundaries
 * (1007, as soon as the bad piece arrives), and a message past maxMessageSize after inflation
 * (1009, as soon as the piece that passes it arrives). Compressed fragments are inflated as they
 * come, with the room left in the message as the inflate cap.
 *
 * It holds at most maxMessageSize bytes of message. Small fragments are appended to a tail string
 * and pieces of 64 KiB and more are kept in a list joined once at the end, so a message of many
 * tiny fragments costs neither a list entry per fragment nor quadratic copying.
 */
final class MessageAssembler
{
    private const COALESCE_BELOW = 65_536;

    /** The opcode of the message in progress; 0 when none is. */
    private int $opcode = 0;
    private bool $compressed = false;
    private int $size = 0;
    private int $wireSize = 0;
    /** @var list<string> */
    private array $parts = [];
    private string $tail = '';
    private ?Utf8Validator $utf8 = null;
    private bool $binary = false;
    private readonly int $maxWireSize;

    public function __construct(
        private readonly int $maxMessageSize,
        private readonly ?MessageInflater $inflater,
    ) {
        $this->maxWireSize = $maxMessageSize + ($maxMessageSize >> 3) + 1024;
    }

    public function inProgress(): bool
    {
        return $this->opcode !== 0;
    }

    /**
     * Whether the last message add() completed was binary.
     */
    public function lastWasBinary(): bool
    {
        return $this->binary;
    }

    /**
     * Takes the next data frame (text, binary or continuation); returns the whole message once
     * its last frame is in, else null.
     *
     * @throws ProtocolException
     */
    public function add(Frame $frame): ?string
    {
        if ($frame->opcode === 0) {
            if ($this->opcode === 0) {
                throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'A continuation frame came with no fragmented message in progress.');
            }
        } else {
            if ($this->opcode !== 0) {
                throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'A new data frame came before the fragmented message in progress ended.');
            }
            $this->opcode = $frame->opcode;
            $this->compressed = $frame->rsv1;
            $this->size = $this->wireSize = 0;
        }
        $piece = $frame->payload;
        if ($this->compressed) {
            if ($this->inflater === null) {
                throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'A compressed message came, but permessage-deflate was not negotiated.');
            }
            $this->wireSize += \strlen($piece);
            if ($this->wireSize > $this->maxWireSize) {
                throw new ProtocolException(CloseCode::MESSAGE_TOO_BIG, "A compressed message of more than {$this->maxWireSize} bytes on the wire.");
            }
            $piece = $this->inflater->inflate($piece, $frame->fin, $this->maxMessageSize - $this->size);
        }
        $this->size += \strlen($piece);
        if ($this->size > $this->maxMessageSize) {
            throw new ProtocolException(CloseCode::MESSAGE_TOO_BIG, "A message of more than {$this->maxMessageSize} bytes.");
        }
        if ($this->opcode === 1) {
            $utf8 = $this->utf8 ??= new Utf8Validator();
            if (!$utf8->feed($piece) || ($frame->fin && !$utf8->isComplete())) {
                $utf8->reset();

                throw new ProtocolException(CloseCode::INVALID_PAYLOAD, 'A text message is not valid UTF-8.');
            }
        }
        if ($piece !== '') {
            if (\strlen($piece) >= self::COALESCE_BELOW) {
                if ($this->tail !== '') {
                    $this->parts[] = $this->tail;
                    $this->tail = '';
                }
                $this->parts[] = $piece;
            } else {
                $this->tail .= $piece;
                if (\strlen($this->tail) >= self::COALESCE_BELOW) {
                    $this->parts[] = $this->tail;
                    $this->tail = '';
                }
            }
        }
        if (!$frame->fin) {
            return null;
        }
        if ($this->parts === []) {
            $message = $this->tail;
        } else {
            if ($this->tail !== '') {
                $this->parts[] = $this->tail;
            }
            $message = implode('', $this->parts);
            $this->parts = [];
        }
        $this->tail = '';
        $this->binary = $this->opcode === 2;
        $this->opcode = 0;

        return $message;
    }

    /**
     * Bytes of the message in progress held so far.
     */
    public function bufferedBytes(): int
    {
        return $this->opcode === 0 ? 0 : $this->size;
    }
}
