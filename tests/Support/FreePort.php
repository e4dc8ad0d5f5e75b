<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

/**
 * A TCP port on 127.0.0.1 that nothing listened on a moment ago (the kernel's pick for port 0),
 * for a server a test starts in another process.
 */
final class FreePort
{
    private function __construct() {}

    public static function get(): int
    {
        $probe = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
        if ($probe === false) {
            throw new \RuntimeException("Could not find a free port: {$errstr}");
        }
        $name = (string) stream_socket_get_name($probe, false);
        fclose($probe);

        return (int) substr($name, (int) strrpos($name, ':') + 1);
    }
}
