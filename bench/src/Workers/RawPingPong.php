<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

/**
 * The floor under a cross-worker round trip on this machine: two PHP processes bouncing 4 bytes
 * over a Unix socket pair with stream_select(), sleeping while they wait, no actors and no framing.
 */
final class RawPingPong
{
    /**
     * @return float microseconds per round trip
     */
    public static function measure(int $rounds): float
    {
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            throw new \RuntimeException('Could not create a socket pair.');
        }
        [$mine, $theirs] = $pair;
        $pid = pcntl_fork();
        if ($pid === -1) {
            throw new \RuntimeException('fork() failed.');
        }
        if ($pid === 0) {
            fclose($mine);
            for ($i = 0; $i < $rounds; ++$i) {
                self::wait($theirs);
                fwrite($theirs, (string) fread($theirs, 16));
            }
            exit(0);
        }
        fclose($theirs);
        $start = hrtime(true);
        for ($i = 0; $i < $rounds; ++$i) {
            fwrite($mine, 'ping');
            self::wait($mine);
            fread($mine, 16);
        }
        $elapsed = hrtime(true) - $start;
        pcntl_waitpid($pid, $status);
        fclose($mine);

        return $elapsed / 1e3 / $rounds;
    }

    /**
     * @param resource $stream
     */
    private static function wait(mixed $stream): void
    {
        $read = [$stream];
        $write = null;
        $except = null;
        stream_select($read, $write, $except, null);
    }
}
