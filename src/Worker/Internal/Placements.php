<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Props;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Cluster\Placement;
use Nexus\Cluster\View;
use Nexus\Worker\Codec\Internal\Relayed;

/**
 * Where the named actors and entities of a cluster live, as this worker sees it: the view the
 * master passed on, the owner of each key under it (Placement, cached per view), and what happens
 * when the view changes.
 *
 *  - A message for a placed actor (a path /user/<name> of a named actor, /user/<kind>/<id> of an
 *    entity) goes to the owner under this worker's view; an owner that is another slot gets it
 *    over the link. A slot that receives one it does not own (the sender's view was older) passes
 *    it on (Relayed, at most MAX_HOPS times: beyond, the views disagree and it is a dead letter,
 *    NotPlaced).
 *  - On a new view, the placed actors of this worker that now belong elsewhere stop after the
 *    message in hand (a persistent one after its write in flight); what they still had queued is
 *    passed to the new owner, ahead of what that owner received directly meanwhile. Once they
 *    have all stopped and what was passed on is acknowledged, the worker tells the master it has
 *    applied the view (an "applied" line), and the master tells the cluster.
 *  - An actor newly placed here starts only once the view is settled (every member has applied
 *    its joins and leaves: no other slot still runs it); messages for it wait meanwhile, at most
 *    HOLD_LIMIT of them (beyond, the links bringing more stop reading, a local sender's message is
 *    a dead letter) and at most HOLD_TIMEOUT (then dead letters, NotPlaced; asks fail at once).
 *    It starts with the view's revision as its placement epoch: a persistent actor writes its
 *    journal with it, so an owner placed under an older view can no longer write.
 *  - Fenced (the node cannot renew its lease): every placed actor here stops, and messages for
 *    placed actors are dead letters (NotPlaced) until a new view comes.
 *
 * @internal
 */
final class Placements
{
    public const DELIVER = 0;
    public const HANDLED = 1;
    public const WAIT = 2;
    /** Times a message for a placed actor is passed on at most. */
    public const MAX_HOPS = 3;
    /** Messages kept at most for placed actors that cannot start yet. */
    public const HOLD_LIMIT = 65_536;
    /** Seconds a message waits at most for its actor to start. */
    public const HOLD_TIMEOUT = 10.0;
    private const SWEEP = 0.05;
    /** Seconds between the reports of what this worker hosts (nexus cluster status). */
    private const STATS_EVERY = 2.0;

    private ?View $view = null;
    private bool $settled = false;
    /** Why nothing is placed here (fenced), or null. */
    private ?string $fenced = null;
    /** @var array<string, int|null> owner by key, under the current view */
    private array $owners = [];
    /** @var array<string, Props|Behavior> declared named actors */
    private array $named = [];
    /** @var array<string, true> declared entity kinds */
    private array $kinds = [];
    /** @var list<array{string, mixed, ?ActorRef, int, float, int}> held: path, message, sender, hops, since, revision wanted */
    private array $held = [];
    /** @var list<array{string, mixed, ?ActorRef, int, float, int}> held messages an old owner passed on: they go first */
    private array $heldHandedOff = [];
    /** @var array<string, Endpoint> placed actors of this worker stopping because they moved */
    private array $moving = [];
    /** @var array<int, true> slots messages were passed on to while the moved actors stopped */
    private array $passedTo = [];
    private int $reported = 0;
    private ?int $sweep = null;
    private readonly PoisonPill $pill;

    /**
     * @param \Closure(string): void $report sends a line to the master
     */
    public function __construct(
        private readonly Mesh $mesh,
        private readonly \Closure $report,
    ) {
        $this->pill = new PoisonPill();
        $loop = $mesh->system->loop;
        $last = '';
        $loop->unreference($loop->repeat(self::STATS_EVERY, function () use (&$last): void {
            [$entities, $named] = $this->hosted();
            $line = "hosted {$entities} {$named}"; // not "stats": the master reads "stats <id> <length>" as a stats answer
            if ($line !== $last) {
                $last = $line;
                ($this->report)($line);
            }
        }));
    }

    /**
     * The entities and named actors alive on this worker.
     *
     * @return array{int, int}
     */
    public function hosted(): array
    {
        $entities = $named = 0;
        foreach ($this->placedHere() as $path => $_) {
            if (strpos($path, '/', 6) === false) {
                ++$named;
            } else {
                ++$entities;
            }
        }

        return [$entities, $named];
    }

    public function declareNamed(string $name, Props|Behavior $props): void
    {
        $this->named[$name] = $props;
        $this->startOwned();
    }

    public function declareKind(string $kind): void
    {
        $this->kinds[$kind] = true;
    }

    public function isPlaced(string $path): bool
    {
        if (!str_starts_with($path, '/user/')) {
            return false;
        }
        $end = strpos($path, '/', 6);
        if ($end === false) {
            return isset($this->named[substr($path, 6)]);
        }

        return isset($this->kinds[substr($path, 6, $end - 6)]) && strpos($path, '/', $end + 1) === false;
    }

    /**
     * The slot that owns $key (a placed path without its /user/) under the current view; null
     * when there is no view (not joined yet, fenced) or no member takes it.
     */
    /**
     * Whether the placed actor at $path is stopping here because the view moved it (or fenced
     * this node).
     */
    public function isMoving(string $path): bool
    {
        return isset($this->moving[$path]);
    }

    public function ownerOf(string $key): ?int
    {
        if ($this->view === null) {
            return null;
        }
        if (\array_key_exists($key, $this->owners)) {
            return $this->owners[$key];
        }
        if (\count($this->owners) >= 100_000) {
            $this->owners = [];
        }

        return $this->owners[$key] = Placement::owner($this->view->slots, $key);
    }

    public function view(): ?View
    {
        return $this->view;
    }

    public function isSettled(): bool
    {
        return $this->settled && $this->fenced === null;
    }

    /**
     * Placed actors stopping because they moved, and messages waiting for one to start: for
     * tests and the status command.
     *
     * @return array{moving: int, held: int}
     */
    public function sizes(): array
    {
        return ['moving' => \count($this->moving), 'held' => \count($this->held) + \count($this->heldHandedOff)];
    }

    // ---- views ------------------------------------------------------------------------------

    public function apply(View $view): void
    {
        $previous = $this->view;
        $this->view = $view;
        $this->fenced = null;
        $this->owners = [];
        $this->settled = $view->settled();
        $this->mesh->viewChanged($view, $previous);
        if ($previous === null || $previous->revision !== $view->revision) {
            foreach ($this->placedHere() as $path => $endpoint) {
                $owner = $this->ownerOf(substr($path, 6));
                if ($owner !== $this->mesh->id && !isset($this->moving[$path])) {
                    $this->moving[$path] = $endpoint;
                    $endpoint->stopAfterCurrent($this->pill);
                }
            }
        }
        if ($this->settled) {
            $this->startOwned();
        }
        $this->release(); // what waited goes on, or waits again
        $this->checkApplied();
        $this->armSweep();
    }

    /**
     * This node cannot be sure it is a member any more: every placed actor here stops now, and
     * nothing is placed until the next view.
     */
    public function fence(string $why): void
    {
        $this->fenced = $why;
        $this->view = null;
        $this->owners = [];
        $this->settled = false;
        foreach ($this->placedHere() as $path => $endpoint) {
            if (!isset($this->moving[$path])) {
                $this->moving[$path] = $endpoint;
                $endpoint->stopAfterCurrent($this->pill);
            }
        }
        $held = [...$this->heldHandedOff, ...$this->held];
        $this->held = $this->heldHandedOff = [];
        foreach ($held as [$path, $message, $sender]) {
            $this->refuse($path, $message, $sender, "this node stopped hosting: {$why}");
        }
    }

    // ---- routing ----------------------------------------------------------------------------

    /**
     * What becomes of a message for the placed actor at $path that this worker has in hand (from
     * a local sender, from a link, or one an actor that moved had queued): DELIVER (it is ours and
     * may start: deliver it here), HANDLED (passed on, held or refused), or WAIT (held messages
     * are at their limit: a link should stop reading; only when !$force).
     */
    public function route(string $path, mixed $message, ?ActorRef $sender, int $hops, bool $handOff, bool $force, int $revision = 0): int
    {
        if ($this->view === null || $revision > $this->view->revision) {
            if ($this->fenced !== null) {
                $this->refuse($path, $message, $sender, "this node is not hosting: {$this->fenced}");

                return self::HANDLED;
            }

            // The first view is on its way, or the slot that passed it on has a newer one.
            return $this->hold($path, $message, $sender, $hops, $handOff, $force, $revision);
        }
        $owner = $this->ownerOf(substr($path, 6));
        if ($owner === null) {
            $this->refuse($path, $message, $sender, 'no member of the cluster takes it (every member is leaving)');

            return self::HANDLED;
        }
        if ($owner !== $this->mesh->id) {
            if ($hops >= self::MAX_HOPS) {
                $this->refuse($path, $message, $sender, "it was passed on {$hops} times: the nodes' views of the cluster disagree");

                return self::HANDLED;
            }
            $this->mesh->relay($owner, $path, new Relayed($message, $hops + 1, $handOff, $this->view->revision), $sender);
            if ($this->moving !== []) {
                $this->passedTo[$owner] = true;
            }

            return self::HANDLED;
        }
        if ($this->settled && ($handOff || $this->heldHandedOff === [])) {
            return self::DELIVER;
        }

        return $this->hold($path, $message, $sender, $hops, $handOff, $force, $revision);
    }

    /**
     * The props to start the placed actor at $path with: its placement epoch is this view's revision.
     */
    public function placed(Props|Behavior $props): Props
    {
        $props = $props instanceof Behavior ? Props::fromBehavior($props) : $props;

        return $props->withPlacementEpoch($this->view->revision ?? 0);
    }

    /**
     * Takes over what a placed actor that moved still had queued when it stopped: it goes to the
     * new owner. True when taken.
     */
    public function redirect(mixed $message, ?ActorRef $sender, string $recipient, DeadLetterReason $reason): bool
    {
        if ($message === $this->pill || $reason !== DeadLetterReason::RecipientTerminated || !isset($this->moving[$recipient])) {
            return $message === $this->pill;
        }
        $this->route($recipient, $message, $sender, 0, true, true);

        return true;
    }

    // ---- inside -----------------------------------------------------------------------------

    /**
     * @return array<string, Endpoint> the placed actors alive on this worker, by path
     */
    private function placedHere(): array
    {
        $here = [];
        $system = $this->mesh->system;
        foreach ($this->named as $name => $_) {
            $endpoint = $system->endpoint("/user/{$name}");
            if ($endpoint !== null && !$endpoint->isStopping()) {
                $here[$endpoint->path()] = $endpoint;
            }
        }
        foreach ($this->kinds as $kind => $_) {
            foreach ($system->endpoint("/user/{$kind}")?->children() ?? [] as $entity) {
                if (!$entity->isStopping()) {
                    $here[$entity->path()] = $entity;
                }
            }
        }

        return $here;
    }

    /**
     * Starts the named actors this worker owns (settled views only).
     */
    private function startOwned(): void
    {
        if (!$this->isSettled()) {
            return;
        }
        $system = $this->mesh->system;
        foreach ($this->named as $name => $props) {
            if ($this->ownerOf($name) === $this->mesh->id && $system->endpoint("/user/{$name}") === null) {
                try {
                    $ref = $system->spawn($this->mesh->handOff->gated($this->placed($props)), $name);
                    $this->mesh->handOff->place($name, $ref instanceof Endpoint ? $ref : null);
                } catch (\Throwable $e) {
                    $system->logger->error('The named actor {name} could not start here: {error}', ['name' => $name, 'error' => $e->getMessage()]);
                }
            }
        }
    }

    private function hold(string $path, mixed $message, ?ActorRef $sender, int $hops, bool $handOff, bool $force, int $revision): int
    {
        if (\count($this->held) + \count($this->heldHandedOff) >= self::HOLD_LIMIT) {
            if (!$force) {
                return self::WAIT;
            }
            $this->refuse($path, $message, $sender, 'too many messages wait for actors that cannot start yet (' . self::HOLD_LIMIT . ')');

            return self::HANDLED;
        }
        $entry = [$path, $message, $sender, $hops, $this->mesh->system->loop->now(), $revision];
        if ($handOff) {
            $this->heldHandedOff[] = $entry;
        } else {
            $this->held[] = $entry;
        }
        $this->armSweep();

        return self::HANDLED;
    }

    /**
     * A new view: what waited is routed again (what the old owners passed on first) and goes on,
     * or keeps waiting where it was (still ours, the view not settled yet: its wait goes on).
     */
    private function release(): void
    {
        if ($this->held === [] && $this->heldHandedOff === []) {
            return;
        }
        $revision = $this->view->revision ?? \PHP_INT_MAX;
        $go = [];
        foreach (['heldHandedOff', 'held'] as $list) {
            $keep = [];
            foreach ($this->{$list} as $entry) {
                if ($this->fenced === null && !$this->settled && $entry[5] <= $revision && $this->ownerOf(substr($entry[0], 6)) === $this->mesh->id) {
                    $keep[] = $entry;
                } else {
                    $go[] = [$entry, $list === 'heldHandedOff'];
                }
            }
            $this->{$list} = $keep;
        }
        foreach ($go as [[$path, $message, $sender, $hops, , $wanted], $handOff]) {
            $this->mesh->deliverPlaced($path, $message, $sender, $hops, $handOff, $wanted);
        }
    }

    private function refuse(string $path, mixed $message, ?ActorRef $sender, string $why): void
    {
        $this->mesh->refuse($path, $message, $sender, DeadLetterReason::NotPlaced, "{$path}: {$why}");
    }

    /**
     * Once the actors that moved have stopped and what they passed on is acknowledged, tells the
     * master this worker has applied the view.
     */
    private function checkApplied(): void
    {
        foreach ($this->moving as $path => $endpoint) {
            if (!$endpoint->isTerminated()) {
                return;
            }
            unset($this->moving[$path]);
        }
        foreach ($this->passedTo as $slot => $_) {
            if (!$this->mesh->isIdleTowards($slot)) {
                return;
            }
        }
        $this->passedTo = [];
        $revision = $this->view->revision ?? 0;
        if ($this->view !== null && $revision > $this->reported) {
            $this->reported = $revision;
            ($this->report)("applied {$revision}");
        }
    }

    private function armSweep(): void
    {
        if ($this->sweep !== null || ($this->moving === [] && $this->held === [] && $this->heldHandedOff === [] && $this->reported >= ($this->view->revision ?? 0))) {
            return;
        }
        $loop = $this->mesh->system->loop;
        $this->sweep = $loop->delay(self::SWEEP, function (): void {
            $this->sweep = null;
            $this->sweepNow();
        });
        $loop->unreference($this->sweep);
    }

    private function sweepNow(): void
    {
        $this->checkApplied();
        $deadline = $this->mesh->system->loop->now() - self::HOLD_TIMEOUT;
        foreach (['held', 'heldHandedOff'] as $list) {
            $keep = [];
            foreach ($this->{$list} as $entry) {
                if ($entry[4] < $deadline) {
                    $this->refuse($entry[0], $entry[1], $entry[2], \sprintf('it waited %.0f s for its actor to start here (the cluster\'s view did not settle)', self::HOLD_TIMEOUT));
                } else {
                    $keep[] = $entry;
                }
            }
            $this->{$list} = $keep;
        }
        $this->armSweep();
    }
}
