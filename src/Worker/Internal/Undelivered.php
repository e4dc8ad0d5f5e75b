<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\MailboxFullException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Actor\ReplyAddress;
use Nexus\Worker\Codec\BatchLayout;
use Nexus\Worker\Codec\Internal\RemoteAskFailed;
use Nexus\Worker\Exception\DeliveryUnknownException;
use Nexus\Worker\Exception\NodeLostException;
use Nexus\Worker\Exception\NotDeliveredException;
use Nexus\Worker\RemoteActorRef;
use Nexus\Worker\Slots;

/**
 * What becomes of a message between workers that is not delivered: a dead letter with its
 * reason, one message at a time, and the ask waiting on it fails at once with the exception for
 * that reason (askFailure(): "delivery unknown" when it may have been handled, "not delivered"
 * when it certainly was not).
 *
 * @internal
 */
final class Undelivered
{
    public function __construct(
        private readonly Mesh $mesh,
        private readonly ReplyAddresses $replies,
    ) {}

    /**
     * The exception a remote ask fails with when its message met $reason.
     */
    public static function askFailure(DeadLetterReason $reason, string $detail): \Throwable
    {
        return match ($reason) {
            DeadLetterReason::WorkerLost => new DeliveryUnknownException("Delivery unknown: {$detail} The link broke before the other worker confirmed the message, so it may or may not have been handled; retry only if handling it twice is harmless."),
            DeadLetterReason::MailboxFull => new MailboxFullException("Not delivered: {$detail}"),
            DeadLetterReason::RecipientTerminated, DeadLetterReason::NoRecipient => new RecipientTerminatedException("The ask could not be delivered: {$detail}"),
            DeadLetterReason::NodeLost => new NodeLostException("Node lost: {$detail} It left the cluster before confirming the message, so it may or may not have been handled; its actors come up on the other nodes."),
            default => new NotDeliveredException("Not delivered: {$detail}"),
        };
    }

    /**
     * Whether a reply is the news that the ask failed at the other worker, and its exception.
     */
    public static function replyFailure(mixed $message): ?\Throwable
    {
        if (!$message instanceof RemoteAskFailed) {
            return null;
        }
        $reason = DeadLetterReason::tryFrom($message->reason) ?? DeadLetterReason::NoRecipient;

        return self::askFailure($reason, $message->detail . '.');
    }

    /**
     * Messages that left this worker but may not have arrived (WorkerLost), or never could leave
     * it: each becomes a dead letter, and a remote ask among them fails at once, with
     * DeliveryUnknownException for WorkerLost and NotDeliveredException otherwise.
     *
     * @param list<mixed> $batch laid out as BatchLayout says
     */
    public function batch(array $batch, int $worker, DeadLetterReason $reason): void
    {
        $mesh = $this->mesh;
        $where = match ($worker) {
            Mesh::SUCCESSOR => 'the worker replacing ' . Slots::describe($mesh->id),
            Mesh::PREDECESSOR => 'the worker ' . Slots::describe($mesh->id) . ' replaced',
            default => Slots::describe($worker),
        };
        foreach (BatchLayout::messages($batch) as [$path, $message, $senderWorker, $senderPath]) {
            $sender = $senderWorker === -1 ? null : $mesh->remoteRef($senderWorker, $senderPath);
            if ($senderWorker === $mesh->id && str_starts_with($senderPath, $this->replies->prefix)) {
                $this->replies->fail($senderPath, self::askFailure($reason, "{$path} on {$where} could not be reached ({$reason->value})."), static function (ActorRef $asker) use ($reason, $path): void {
                    if ($asker instanceof ReplyAddress) {
                        $asker->undeliverable($reason, $path);
                    }
                });
            } elseif ($sender !== null) {
                $sender->undeliverable($reason, "{$where}:{$path}"); // a remote asker, or one of the other process of this slot
            }
            if (!$message instanceof RemoteAskFailed) {
                $mesh->system->deadLetters->publish($message, $sender, "{$where}:{$path}", $reason);
            }
        }
    }

    /**
     * A message that reached this worker but no actor: a dead letter with $reason, and an ask
     * fails at once.
     */
    public function refuse(string $path, mixed $message, ?ActorRef $sender, DeadLetterReason $reason, string $detail): void
    {
        if ($sender instanceof RemoteActorRef && str_starts_with($sender->path(), ReplyAddresses::PREFIX)) {
            $this->mesh->notifyAsker($sender, $reason, $detail);
        } elseif ($sender instanceof ReplyAddress) {
            $sender->undeliverable($reason, $path);
        }
        if (!$message instanceof RemoteAskFailed) {
            $this->mesh->system->deadLetters->publish($message, $sender, $path, $reason);
        }
    }

    /**
     * Delivering a message from another worker threw (a factory, an invalid name, a full mailbox):
     * it alone becomes a dead letter, with the cause logged and told to an asker.
     */
    public function failed(string $path, mixed $message, ?ActorRef $sender, \Throwable $error): void
    {
        $reason = $error instanceof MailboxFullException ? DeadLetterReason::MailboxFull : DeadLetterReason::RecipientNotStarted;
        $this->mesh->system->logger->warning('A message from another worker for {path} could not be delivered ({reason}): {error}', [
            'path' => $path,
            'reason' => $reason->value,
            'error' => $error::class . ': ' . $error->getMessage(),
        ]);
        $this->refuse($path, $message, $sender, $reason, "{$path} on " . Slots::describe($this->mesh->id) . ': ' . $error->getMessage());
    }
}
