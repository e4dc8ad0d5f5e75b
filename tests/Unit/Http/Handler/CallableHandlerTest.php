<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler;

use Nexus\Http\Handler\CallableHandler;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Tests\Unit\Http\Routing\Requests;
use PHPUnit\Framework\TestCase;

final class CallableHandlerTest extends TestCase
{
    /**
     * A handler that returns the values of $results in turn.
     *
     * @param list<mixed> $results
     */
    private static function handler(array $results): CallableHandler
    {
        $i = 0;

        return new CallableHandler(static function () use ($results, &$i): mixed {
            return $results[$i++];
        }, [], 'GET /test');
    }

    private static function call(CallableHandler $handler): Response
    {
        return $handler->handle(Requests::make('GET', '/test'));
    }

    public function testTheSameStringGetsTheSameResponseAndAnotherStringItsOwn(): void
    {
        $handler = self::handler(['Hello', 'Hello', 'Bye', 'Hello']);
        $first = self::call($handler);
        self::assertSame($first, self::call($handler));
        $bye = self::call($handler);
        self::assertSame('Bye', $bye->body);
        self::assertNotSame($first, $bye);
        self::assertSame('Hello', self::call($handler)->body);
    }

    public function testEqualFlatArraysShareAResponseAndDifferentOnesDoNot(): void
    {
        $handler = self::handler([
            ['message' => 'Hello, Ada!'],
            ['message' => 'Hello, ' . 'Ada!'],
            ['message' => 'Hello, Bob!'],
            ['n' => 1, 'ok' => true, 'x' => null],
            ['n' => '1', 'ok' => true, 'x' => null],
            ['ok' => true, 'n' => 1, 'x' => null],
        ]);
        $ada = self::call($handler);
        self::assertSame('{"message":"Hello, Ada!"}', $ada->body);
        self::assertSame($ada, self::call($handler));
        self::assertSame('{"message":"Hello, Bob!"}', self::call($handler)->body);
        self::assertSame('{"n":1,"ok":true,"x":null}', self::call($handler)->body);
        self::assertSame('{"n":"1","ok":true,"x":null}', self::call($handler)->body, 'a string equal to the int is another value');
        self::assertSame('{"ok":true,"n":1,"x":null}', self::call($handler)->body, 'the same fields in another order are another value');
    }

    public function testFloatsObjectsNestedArraysAndLargeBodiesAreConvertedEveryTime(): void
    {
        $object = new class implements \JsonSerializable {
            public int $count = 1;

            public function jsonSerialize(): mixed
            {
                return ['count' => $this->count];
            }
        };
        $large = str_repeat('x', CallableHandler::REUSE_MAX_BODY + 1);
        $results = [['v' => 0.0], ['v' => -0.0], [$object], [$object], ['a' => ['b' => 1]], ['a' => ['b' => 1]], $large, $large];
        $handler = self::handler($results);
        self::assertSame('{"v":0}', self::call($handler)->body);
        self::assertSame('{"v":-0}', self::call($handler)->body, '0.0 === -0.0, but they encode differently');
        self::assertSame('[{"count":1}]', self::call($handler)->body);
        $object->count = 2;
        self::assertSame('[{"count":2}]', self::call($handler)->body);
        $nested = self::call($handler);
        self::assertNotSame($nested, self::call($handler));
        $first = self::call($handler);
        self::assertSame($large, $first->body);
        self::assertNotSame($first, self::call($handler));
    }

    public function testNullIs204AndAResponseIsPassedThrough(): void
    {
        $response = Response::text('mine', 201);
        $handler = self::handler([null, null, $response, $response, null]);
        $empty = self::call($handler);
        self::assertSame(204, $empty->status);
        self::assertSame($empty, self::call($handler));
        $passed = [self::call($handler), self::call($handler)];
        self::assertSame([$response, $response], $passed);
        self::assertSame(204, self::call($handler)->status);
    }

    public function testArgumentsStillReachTheHandlerOnEveryCall(): void
    {
        $handler = new CallableHandler(
            static fn(string $name): array => ['message' => "Hello, {$name}!"],
            [static fn(Request $request): string => substr($request->path(), 1)],
            'GET /{name}',
        );
        $bodies = [];
        foreach (['/Ada', '/Ada', '/Bob'] as $path) {
            $bodies[] = $handler->handle(Requests::make('GET', $path))->body;
        }
        self::assertSame(['{"message":"Hello, Ada!"}', '{"message":"Hello, Ada!"}', '{"message":"Hello, Bob!"}'], $bodies);
    }
}
