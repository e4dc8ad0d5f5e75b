<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\ActorNameTakenException;
use Nexus\Actor\Exception\InvalidActorNameException;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class HierarchyTest extends TestCase
{
    public function testTopLevelActorsLiveUnderUserAndChildrenUnderTheirParent(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $parent = $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($probe): Behavior {
            $named = $ctx->spawn(Behavior::ignore(), 'worker');
            $anonymous = $ctx->spawn(Behavior::ignore());
            $probe->ref->tell([$named->path(), $anonymous->path(), array_keys($ctx->children())]);

            return Behavior::ignore();
        }), 'boss');

        $report = $probe->receiveMessage();
        self::assertIsArray($report);
        [$named, $anonymous, $children] = $report;
        self::assertIsString($anonymous);
        self::assertIsArray($children);
        self::assertSame('/user/boss', $parent->path());
        self::assertSame('/user/boss/worker', $named);
        self::assertMatchesRegularExpression('#^/user/boss/\$\w+$#', $anonymous);
        self::assertSame('worker', $children[0]);
        self::assertCount(2, $children);
    }

    public function testSystemActorsLiveUnderSystem(): void
    {
        $kit = new TestKit();
        $ref = $kit->system->spawnSystemActor(Behavior::ignore(), 'housekeeping');

        self::assertSame('/system/housekeeping', $ref->path());
        self::assertSame($ref, $kit->system->lookup('/system/housekeeping'));
    }

    public function testLookupFindsLiveActorsByPath(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($probe): Behavior {
            $probe->ref->tell($ctx->spawn(Behavior::ignore(), 'leaf'));

            return Behavior::ignore();
        }), 'branch');
        $leaf = $probe->expectMessageClass(ActorRef::class);

        self::assertSame($leaf, $kit->system->lookup('/user/branch/leaf'));
        self::assertSame($leaf, $kit->system->lookup('user/branch/leaf/'));
        self::assertNull($kit->system->lookup('/user/branch/nobody'));
        self::assertNull($kit->system->lookup('/user/nobody/leaf'));

        $kit->system->stop($leaf);
        $kit->runUntilIdle();
        self::assertNull($kit->system->lookup('/user/branch/leaf'));
    }

    public function testADuplicateNameIsAClearError(): void
    {
        $kit = new TestKit();
        $kit->spawn(Behavior::ignore(), 'unique');

        $this->expectException(ActorNameTakenException::class);
        $this->expectExceptionMessage("An actor named 'unique' already exists under /user");
        $kit->spawn(Behavior::ignore(), 'unique');
    }

    public function testANameIsFreeAgainOnceItsActorHasStopped(): void
    {
        $kit = new TestKit();
        $first = $kit->spawn(Behavior::ignore(), 'reused');
        $kit->system->stop($first);
        $kit->runUntilIdle();

        $second = $kit->spawn(Behavior::ignore(), 'reused');

        self::assertNotSame($first, $second);
        self::assertSame($second, $kit->system->lookup('/user/reused'));
    }

    /**
     * @return iterable<string, array{string}>
     */
    public static function invalidNames(): iterable
    {
        yield 'empty' => [''];
        yield 'slash' => ['a/b'];
        yield 'space' => ['a b'];
        yield 'reserved dollar' => ['$1'];
        yield 'hash' => ['a#b'];
    }

    #[DataProvider('invalidNames')]
    public function testInvalidNamesAreRejected(string $name): void
    {
        $kit = new TestKit();

        $this->expectException(InvalidActorNameException::class);
        $kit->spawn(Behavior::ignore(), $name);
    }

    public function testContextGivesParentSelfAndChildLookup(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $parent = $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($probe): Behavior {
            $child = $ctx->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe): void {
                $probe->ref->tell($ctx->parent());
            }), 'kid');
            $probe->ref->tell($ctx->child('kid') === $child);
            $probe->ref->tell($ctx->child('nobody'));
            $child->tell('who is my parent?');

            return Behavior::ignore();
        }), 'mum');

        $probe->expectMessage(true);
        $probe->expectMessage(null);
        self::assertSame($parent, $probe->receiveMessage());
    }
}
