<?php

declare(strict_types=1);

namespace Nexus\Actor;

/**
 * Publish/subscribe by message class within one actor system. A subscription to a class or
 * interface receives every event that is an instance of it. Subscriptions end when the subscriber
 * stops. System events: DeadLetter, UnhandledMessage, ActorFailed, ActorStarted, ActorStopped,
 * ActorRestarted (all in Nexus\Actor\Event).
 */
final class EventStream
{
    /** @var array<class-string, array<int, ActorRef>> subscribed class => subscriber id => ref */
    private array $subscriptions = [];
    /** @var array<string, list<ActorRef>> concrete event class => its subscribers, resolved lazily */
    private array $resolved = [];

    /**
     * @param class-string $class
     */
    public function subscribe(ActorRef $subscriber, string $class): void
    {
        if (!class_exists($class) && !interface_exists($class)) {
            throw new \InvalidArgumentException("Cannot subscribe to {$class}: no such class or interface is loaded.");
        }
        $this->subscriptions[$class][spl_object_id($subscriber)] = $subscriber;
        $this->resolved = [];
    }

    /**
     * Ends one subscription, or every subscription of $subscriber when $class is null.
     *
     * @param class-string|null $class
     */
    public function unsubscribe(ActorRef $subscriber, ?string $class = null): void
    {
        if (\count($this->subscriptions) === 0) {
            return;
        }
        $id = spl_object_id($subscriber);
        $changed = false;
        foreach ($class === null ? array_keys($this->subscriptions) : [$class] as $subscribed) {
            if (isset($this->subscriptions[$subscribed][$id])) {
                unset($this->subscriptions[$subscribed][$id]);
                if ($this->subscriptions[$subscribed] === []) {
                    unset($this->subscriptions[$subscribed]);
                }
                $changed = true;
            }
        }
        if ($changed) {
            $this->resolved = [];
        }
    }

    /**
     * @param class-string $class
     */
    public function hasSubscribers(string $class): bool
    {
        return \count($this->subscriptions) !== 0 && \count($this->resolved[$class] ?? $this->resolve($class)) !== 0;
    }

    /**
     * Delivers $event to every subscriber of its class, its parents and its interfaces; returns
     * how many received it.
     */
    public function publish(object $event): int
    {
        if (\count($this->subscriptions) === 0) {
            return 0;
        }
        $subscribers = $this->resolved[$event::class] ?? $this->resolve($event::class);
        foreach ($subscribers as $subscriber) {
            $subscriber->tell($event);
        }

        return \count($subscribers);
    }

    /**
     * @return list<ActorRef>
     */
    private function resolve(string $class): array
    {
        $subscribers = [];
        foreach ($this->subscriptions as $subscribed => $refs) {
            if ($class === $subscribed || is_subclass_of($class, $subscribed)) {
                foreach ($refs as $id => $ref) {
                    $subscribers[$id] = $ref;
                }
            }
        }

        return $this->resolved[$class] = array_values($subscribers);
    }
}
