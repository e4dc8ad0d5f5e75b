<?php

declare(strict_types=1);

require __DIR__ . '/../vendor/autoload.php';

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;

$system = new ActorSystem('quickstart');

// Stateful: the count is the actor's state, and the handler returns the next state.
$counter = $system->spawn(Behavior::withState(
    0,
    static function (int $count, mixed $message, ActorContext $ctx): int {
        if ($message === 'get') {
            $ctx->reply($count);

            return $count;
        }

        return $count + 1;
    },
), 'counter');

// Stateless: greets whoever asks, and tells the counter about it.
$greeter = $system->spawn(Behavior::receive(
    static function (string $name, ActorContext $ctx) use ($counter): void {
        $counter->tell('greeted');
        $ctx->reply("Hello, {$name}!");
    },
), 'greeter');

// ask() returns a Future; await() from top-level code runs the loop until the reply is there.
printf("%s\n", $greeter->ask('Ada')->await());
printf("%s\n", $greeter->ask('Grace')->await());

// tell() sends without waiting; a mailbox is first in, first out, so 'get' sees all three.
$counter->tell('greeted by hand');
printf("Greetings counted: %d\n", $counter->ask('get')->await());

// Stop every actor (children before parents) and run the loop until that is done.
$system->shutdown();
$system->run();
printf("Stopped: %s\n", $system->isTerminated() ? 'yes' : 'no');
