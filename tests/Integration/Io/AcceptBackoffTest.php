<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

/**
 * A listener out of file descriptors (EMFILE) backs off instead of spinning on its readable
 * listening socket, keeps serving the connections it has, and accepts again once it can.
 * The listener runs in a child process whose descriptor limit leaves room for two connections.
 */
final class AcceptBackoffTest extends ListenerProcessTestCase
{
    public function testBacksOffWhenOutOfDescriptorsAndResumesWhenOneIsFree(): void
    {
        if (!\function_exists('posix_setrlimit') || !is_dir('/proc/self/fd')) {
            self::markTestSkipped('Needs posix_setrlimit() and /proc.');
        }
        $address = $this->start('exhausted-listener.php');
        $first = self::connect($address);
        $second = self::connect($address);
        self::assertSame('one', self::echo($first, 'one'));
        self::assertSame('two', self::echo($second, 'two'));

        $third = self::connect($address); // completes in the kernel backlog
        fwrite($third, 'three');
        $this->waitForLog('Too many open files');
        $this->assertChildDoesNotSpin();
        self::assertSame('still', self::echo($first, 'still'), 'open connections are still served');

        fclose($second);
        self::assertSame('three', self::read($third, 5, 3.0), 'accepted once a descriptor is free');

        $this->stopChild();
        self::assertSame(1, substr_count($this->log(), 'Too many open files'), "one warning per episode:\n{$this->log()}");
        self::assertStringContainsString('again', $this->log());
    }
}
