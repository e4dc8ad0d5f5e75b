<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Message\ReceiveTimeout;
use Nexus\Actor\Props;
use Nexus\Http\WebSocket\Exception\InvalidUtf8Exception;
use Nexus\Http\WebSocket\Utf8Validator;
use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Runtime\Loop;
use Nexus\Worker\Exception\MessageTooLargeException;
use Nexus\Worker\Topic\InvalidTopicException;
use Nexus\Worker\Topic\TooManyTopicsException;
use Nexus\Worker\Topic\TopicMessage;

/**
 * Publish and subscribe across the worker pool: a message published to a topic, on any worker,
 * reaches every WebSocket subscribed to that topic on every worker. So a chat room works
 * whichever worker each browser landed on. Declare it the same way on every worker (in the
 * application's configure closure, as for named actors).
 *
 * How a message travels: publish() tells the topic's room actor, an entity of kind $name on the
 * worker that owns the topic (Workers::kind()). The room sends each message once to the hub of
 * every worker (/user/$name-hub), and each hub hands it to the subscribers of its own worker,
 * encoding the frame once for all of them; the messages a hub takes in one loop turn (up to 64
 * messages or 64 KiB) go to each subscriber in one write: fewer system calls and packets under
 * load. One room per topic orders its messages, so every
 * subscriber sees a topic's messages in the same order. A room that has relayed nothing for
 * $roomIdleTimeout stops; the next publish starts it again (rooms hold no state).
 *
 * Delivery is at most once: a hub never waits for a subscriber. One that does not read gets its
 * route's overflowPolicy at the unsent-bytes cap (Drop, counted on its WebSocket, or close 1008),
 * so a slow browser neither holds up the others nor makes memory grow: it holds at most its
 * route's maxUnsentBytes plus one write (64 KiB and one message). A room or hub whose
 * mailbox holds $mailboxCapacity messages turns further ones into dead letters (MailboxFull); a
 * message for a worker that is gone becomes a dead letter with the link's reason.
 *
 * Bounds: topic names of 1 to MAX_TOPIC_LENGTH bytes (without '/', not starting with '$'),
 * payloads of at most $maxPayload bytes (MessageTooLargeException), at most $maxTopicsPerSocket
 * topics per WebSocket (TooManyTopicsException). A WebSocket leaves its topics when it closes.
 */
final class Topics
{
    public const MAX_TOPIC_LENGTH = 200;
    /** A hub writes what it holds once this many messages or bytes wait for the end of the turn. */
    private const MAX_PENDING_MESSAGES = 64;
    private const MAX_PENDING_BYTES = 65_536;

    /** @var array<string, array<int, WebSocketConnection>> this worker's subscribers, by topic and WebSocket id */
    private array $subscribers = [];
    /** @var array<int, array<string, true>> the topics of each subscribed WebSocket, by its id */
    private array $topicsOf = [];
    private readonly EntityKind $rooms;
    /** @var list<ActorRef>|null the hub of each worker, by worker number */
    private ?array $hubs = null;
    private readonly string $hubPath;
    private int $delivered = 0;
    /** @var array<string, list<TopicMessage>> messages the hub took this loop turn, by topic, written at its end */
    private array $pending = [];
    private int $pendingCount = 0;
    private int $pendingBytes = 0;
    private readonly Loop $loop;

    /**
     * @param string $name the kind of the room actors (/user/$name/<topic>) and the hub's name prefix
     */
    public function __construct(
        ActorSystem $system,
        private readonly Workers $workers,
        public readonly string $name = 'topics',
        private readonly float $roomIdleTimeout = 60.0,
        private readonly int $maxTopicsPerSocket = 64,
        private readonly int $maxPayload = 1_048_576,
        int $mailboxCapacity = 10_000,
    ) {
        if (!($roomIdleTimeout > 0.0) || is_infinite($roomIdleTimeout)) {
            throw new \InvalidArgumentException("Topics: \$roomIdleTimeout must be a finite number of seconds above zero, got {$roomIdleTimeout}.");
        }
        if ($maxTopicsPerSocket < 1 || $maxPayload < 1 || $mailboxCapacity < 1) {
            throw new \InvalidArgumentException('Topics: $maxTopicsPerSocket, $maxPayload and $mailboxCapacity must be at least 1.');
        }
        $workers->registerMessage(TopicMessage::class);
        $this->loop = $system->loop;
        $this->hubPath = "/user/{$name}-hub";
        $system->spawn(Props::fromBehavior(Behavior::receive(function (mixed $message): null {
            if ($message instanceof TopicMessage) {
                $this->deliver($message);
            }

            return null;
        }))->withMailbox($mailboxCapacity), "{$name}-hub");
        $room = Props::fromBehavior($this->roomBehavior())->withMailbox($mailboxCapacity);
        $this->rooms = $workers->kind($name, static fn(): Props => $room);
    }

    /**
     * Publishes to every subscriber of $topic on every worker (the publisher's own WebSocket too,
     * when it is subscribed). Returns once the message is on its way to the topic's room.
     *
     * @throws InvalidTopicException for a topic name that cannot be used
     * @throws MessageTooLargeException for a payload over $maxPayload bytes
     * @throws InvalidUtf8Exception for a text payload that is not UTF-8
     */
    public function publish(string $topic, string $payload, bool $binary = false): void
    {
        self::checkTopic($topic);
        if (\strlen($payload) > $this->maxPayload) {
            throw new MessageTooLargeException(\sprintf('A message of %d bytes cannot be published to "%s": at most %d bytes (Topics $maxPayload).', \strlen($payload), $topic, $this->maxPayload));
        }
        if (!$binary && !Utf8Validator::isValid($payload)) {
            throw new InvalidUtf8Exception("A text message published to \"{$topic}\" must be valid UTF-8; publish it as binary, or convert it.");
        }
        $this->rooms->ref($topic)->tell(new TopicMessage($topic, $payload, $binary));
    }

    /**
     * Subscribes $socket to $topic (again: nothing changes). It leaves every topic when it closes.
     *
     * @throws InvalidTopicException for a topic name that cannot be used
     * @throws TooManyTopicsException when $socket is already in $maxTopicsPerSocket topics
     */
    public function subscribe(string $topic, WebSocket $socket): void
    {
        self::checkTopic($topic);
        $id = $socket->id;
        if (isset($this->subscribers[$topic][$id]) || !$socket->isOpen()) {
            return;
        }
        $topics = $this->topicsOf[$id] ?? null;
        if ($topics === null) {
            $socket->onClose($this->leaveAll(...));
        } elseif (\count($topics) >= $this->maxTopicsPerSocket) {
            throw new TooManyTopicsException("WebSocket {$id} is already subscribed to {$this->maxTopicsPerSocket} topics (Topics \$maxTopicsPerSocket); unsubscribe it from one before joining \"{$topic}\".");
        }
        $this->topicsOf[$id][$topic] = true;
        $this->subscribers[$topic][$id] = $socket->connection();
    }

    public function unsubscribe(string $topic, WebSocket $socket): void
    {
        $id = $socket->id;
        if (!isset($this->subscribers[$topic][$id])) {
            return;
        }
        unset($this->subscribers[$topic][$id], $this->topicsOf[$id][$topic]);
        if ($this->subscribers[$topic] === []) {
            unset($this->subscribers[$topic]);
        }
        if ($this->topicsOf[$id] === []) {
            unset($this->topicsOf[$id]);
        }
    }

    /**
     * Subscribers of $topic on this worker.
     */
    public function subscriberCount(string $topic): int
    {
        return \count($this->subscribers[$topic] ?? []);
    }

    /**
     * Messages handed to a subscriber on this worker so far (SendResult::Sent).
     */
    public function delivered(): int
    {
        return $this->delivered;
    }

    /**
     * The room actor of $topic, on the worker that owns it (started by its first message).
     */
    public function room(string $topic): ActorRef
    {
        self::checkTopic($topic);

        return $this->rooms->ref($topic);
    }

    private function leaveAll(WebSocket $socket): void
    {
        foreach ($this->topicsOf[$socket->id] ?? [] as $topic => $_) {
            $this->unsubscribe($topic, $socket);
        }
    }

    /**
     * In this worker's hub: the message goes to the topic's subscribers here at the end of this
     * loop turn, with the others the hub takes meanwhile: each subscriber gets them in one write.
     */
    private function deliver(TopicMessage $message): void
    {
        if (!isset($this->subscribers[$message->topic])) {
            return;
        }
        if ($this->pending === []) {
            $this->loop->defer($this->flush(...));
        }
        $this->pending[$message->topic][] = $message;
        $this->pendingBytes += \strlen($message->payload);
        if (++$this->pendingCount >= self::MAX_PENDING_MESSAGES || $this->pendingBytes >= self::MAX_PENDING_BYTES) {
            $this->flush();
        }
    }

    private function flush(): void
    {
        $pending = $this->pending;
        $this->pending = [];
        $this->pendingCount = $this->pendingBytes = 0;
        foreach ($pending as $topic => $messages) {
            $subscribers = $this->subscribers[$topic] ?? null;
            if ($subscribers === null) {
                continue;
            }
            $payloads = $binary = [];
            foreach ($messages as $message) {
                $payloads[] = $message->payload;
                $binary[] = $message->binary;
            }
            $this->delivered += WebSocketConnection::broadcastAll($subscribers, $payloads, $binary);
        }
    }

    /**
     * A topic's room: relays each message once to every worker's hub; stops when idle.
     */
    private function roomBehavior(): Behavior
    {
        $timeout = $this->roomIdleTimeout;

        return Behavior::setup(function (ActorContext $ctx) use ($timeout): Behavior {
            $ctx->setReceiveTimeout($timeout);

            return Behavior::receive(function (mixed $message): ?Behavior {
                if ($message instanceof ReceiveTimeout) {
                    return Behavior::stopped();
                }
                if ($message instanceof TopicMessage) {
                    foreach ($this->hubs() as $hub) {
                        $hub->tell($message);
                    }
                }

                return null;
            });
        });
    }

    /**
     * @return list<ActorRef>
     */
    private function hubs(): array
    {
        if ($this->hubs === null) {
            $hubs = [];
            for ($worker = 0; $worker < $this->workers->count; ++$worker) {
                $hub = $this->workers->at($worker, $this->hubPath);
                if ($hub !== null) {
                    $hubs[] = $hub;
                }
            }
            $this->hubs = $hubs;
        }

        return $this->hubs;
    }

    private static function checkTopic(string $topic): void
    {
        if ($topic === '' || \strlen($topic) > self::MAX_TOPIC_LENGTH || str_contains($topic, '/') || $topic[0] === '$') {
            throw new InvalidTopicException(\sprintf('"%s" cannot name a topic: use 1 to %d bytes, without "/", not starting with "$".', $topic, self::MAX_TOPIC_LENGTH));
        }
    }
}
