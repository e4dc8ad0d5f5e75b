<?php

declare(strict_types=1);

namespace Nexus\Http\Server\Internal;

use Nexus\Http\Response;
use Nexus\Http\Server\RequestTask;
use Psr\Log\LoggerInterface;

/**
 * What the client gets when a handler's own answer cannot be sent, and what is logged about it:
 * 500 for a handler that threw, 503 for one whose time ran out (whatever it made of the
 * cancellation), 500 for a 1xx that does not switch protocols (a client would take it as interim
 * and wait for more). Only the general way asks here: a fast request that gets a plain answer
 * never does.
 *
 * @internal for ServerConnection
 */
final class HandlerOutcome
{
    /**
     * The answer to a handler that threw: 500, logged (unless its time ran out: see checked()).
     */
    public static function threw(RequestTask $task, \Throwable $e, ?LoggerInterface $logger): Response
    {
        if ($task->timedOut === null) {
            \assert($task->request !== null);
            $logger?->error('The request handler threw for {method} {path}: {message}', [
                'method' => $task->request->method(),
                'path' => $task->request->path(),
                'message' => $e->getMessage(),
                'exception' => $e,
            ]);
        }

        return Response::text("Internal Server Error\n", 500);
    }

    /**
     * $response if it may go to the client as the answer to $task, or what replaces it.
     */
    public static function checked(RequestTask $task, Response $response, float $handlerTimeout, ?LoggerInterface $logger): Response
    {
        if ($task->timedOut === null && ($response->status >= 200 || ProtocolSwitch::allows($task, $response))) {
            return $response;
        }
        \assert($task->request !== null);
        if ($task->timedOut !== null) {
            $logger?->warning('The handler of {method} {path} ran out of its {seconds} s (ServerOptions::$handlerTimeout): its waits were cancelled and the client got 503.', [
                'method' => $task->request->method(),
                'path' => $task->request->path(),
                'seconds' => $handlerTimeout,
            ]);

            return Response::text("Service Unavailable\n", 503);
        }
        $logger?->error('The request handler answered {method} {path} with {status}; only the server sends 1xx responses.', [
            'method' => $task->request->method(),
            'path' => $task->request->path(),
            'status' => $response->status,
        ]);

        return Response::text("Internal Server Error\n", 500);
    }
}
