<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Worker\Codec\Internal\RemoteTerminated;
use Nexus\Worker\Codec\Internal\RemoteUnwatch;
use Nexus\Worker\Codec\Internal\RemoteWatch;
use Nexus\Worker\RemoteActorRef;

/**
 * The actor at /system/nexus-watch on every worker: it watches local actors on behalf of actors on
 * other workers and tells each of them RemoteTerminated when the actor stops. One local watch per
 * watched actor, however many remote watchers.
 *
 * @internal
 */
final class WatchRelay
{
    public const NAME = 'nexus-watch';
    public const PATH = '/system/' . self::NAME;

    public static function behavior(ActorSystem $system): Behavior
    {
        /** @var array<string, array<string, RemoteActorRef>> $watchers remote watchers by watched path */
        $watchers = [];
        /** @var array<string, Endpoint> $targets */
        $targets = [];

        return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($system, &$watchers, &$targets): void {
            $sender = $ctx->sender();
            if ($message instanceof RemoteWatch && $sender instanceof RemoteActorRef) {
                $target = $targets[$message->path] ?? $system->endpoint($message->path);
                if ($target === null) {
                    $sender->tell(new RemoteTerminated($message->path), $ctx->self());

                    return;
                }
                if (!isset($targets[$message->path])) {
                    $targets[$message->path] = $target;
                    $ctx->watch($target, new WatchedTargetTerminated($message->path));
                }
                $watchers[$message->path][$sender->watchKey()] = $sender;
            } elseif ($message instanceof RemoteUnwatch && $sender instanceof RemoteActorRef) {
                unset($watchers[$message->path][$sender->watchKey()]);
                if (($watchers[$message->path] ?? []) === [] && isset($targets[$message->path])) {
                    $ctx->unwatch($targets[$message->path]);
                    unset($targets[$message->path], $watchers[$message->path]);
                }
            } elseif ($message instanceof WatchedTargetTerminated) {
                foreach ($watchers[$message->path] ?? [] as $watcher) {
                    $watcher->tell(new RemoteTerminated($message->path), $ctx->self());
                }
                unset($watchers[$message->path], $targets[$message->path]);
            }
        });
    }
}
