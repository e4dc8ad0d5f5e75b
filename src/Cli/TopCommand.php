<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Nexus\Admin\AdminAddress;
use Nexus\Admin\Exception\AdminAddressException;
use Nexus\Admin\Exception\FeedException;
use Nexus\Admin\FeedClient;
use Nexus\Admin\TopScreen;

/**
 * `nexus top [--admin=HOST:PORT] [--once] [--frames=N]`: the headline figures of a running
 * server, read from its admin listener's live feed and redrawn every second. When the feed
 * breaks it says so and reconnects (every 2 s) until Ctrl+C; --once prints one frame and exits.
 */
final class TopCommand implements Command, HasUsage
{
    private const RECONNECT_DELAY = 2.0;

    public function name(): string
    {
        return 'top';
    }

    public function description(): string
    {
        return 'Show the live figures of a running server (workers, actors, requests, dead letters) from its admin listener';
    }

    public function run(array $args, $stdout, $stderr): int
    {
        $admin = AdminAddress::DEFAULT;
        $once = false;
        $frames = 0;
        foreach ($args as $arg) {
            if ($arg === '--once') {
                $once = true;
            } elseif (str_starts_with($arg, '--admin=')) {
                $admin = substr($arg, 8);
            } elseif (str_starts_with($arg, '--frames=') && ctype_digit(substr($arg, 9)) && (int) substr($arg, 9) > 0) {
                $frames = (int) substr($arg, 9);
            } else {
                throw new UsageException("Unknown option '{$arg}'. See: nexus top --help");
            }
        }
        try {
            $address = AdminAddress::parse($admin) ?? throw new UsageException('--admin=off leaves nothing to read: give the HOST:PORT of the admin listener.');
        } catch (AdminAddressException $e) {
            throw new UsageException($e->getMessage());
        }
        $client = new FeedClient($address);
        $screen = new TopScreen(self::columns());
        if ($once) {
            try {
                fwrite($stdout, $screen->render($client->once(), (string) $address));

                return self::SUCCESS;
            } catch (FeedException $e) {
                fwrite($stderr, "nexus top: {$e->getMessage()}\n");

                return self::FAILURE;
            }
        }
        $clear = stream_isatty($stdout) ? "\e[H\e[2J" : '';
        $shown = 0;
        while (true) {
            try {
                $client->follow(static function (array $frame) use ($screen, $stdout, $clear, $address, &$shown, $frames): bool {
                    fwrite($stdout, $clear . $screen->render($frame, (string) $address) . ($clear === '' ? "\n" : ''));

                    return $frames === 0 || ++$shown < $frames;
                });

                return self::SUCCESS;
            } catch (FeedException $e) {
                fwrite($stderr, "nexus top: {$e->getMessage()} Retrying in 2 s (Ctrl+C quits).\n");
                if ($frames > 0) {
                    return self::FAILURE;
                }
                usleep((int) (self::RECONNECT_DELAY * 1e6));
            }
        }
    }

    public function usage(): string
    {
        return <<<'TXT'
            Usage: nexus top [--admin=127.0.0.1:9090] [--once] [--frames=N]

              --admin    the admin listener of the server (default 127.0.0.1:9090, see nexus serve --admin)
              --once     print one screen and exit
              --frames   exit after N screens (for scripts)

            Redraws every second from the server's live feed (GET /feed); Ctrl+C quits.

            TXT;
    }

    private static function columns(): int
    {
        $columns = getenv('COLUMNS');

        return \is_string($columns) && ctype_digit($columns) && (int) $columns >= 60 ? (int) $columns : 120;
    }
}
