<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cli;

use PHPUnit\Framework\TestCase;

final class DemoCommandTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    public function testDemoShowsSupervisionAndAskThenExitsByItself(): void
    {
        $run = PhpProcess::run(['bin/nexus', 'demo'], self::ROOT, 10.0);

        self::assertSame(0, $run->exitCode, $run->describe());
        self::assertSame('', $run->stderr, $run->describe());
        self::assertLessThan(5.0, $run->seconds, 'The demo should exit by itself within about a second. ' . $run->describe());
        // What the narrative must show, in this order.
        $expected = [
            'ask GetBalance -> 150',
            'ActorFailed: /user/bank/account on Withdraw(500): DomainException',
            'DomainException -> Resume',
            'ask GetBalance -> 150 (Resume kept the balance)',
            'ActorFailed: /user/bank/account on Withdraw(-20): InvalidArgumentException',
            'InvalidArgumentException -> Restart',
            'PostRestart signal',
            'ActorRestarted: /user/bank/account',
            'ask GetBalance -> 0 (Restart reset the balance)',
            'AskTimeoutException: No reply from /user/bank within 0.300 s',
            'PostStop signal',
            'demo finished',
        ];
        self::assertSame($expected, self::inOrder($run->stdout, $expected), $run->describe());
        self::assertStringEndsWith("demo finished (the code is in src/Demo/BankStory.php)\n", $run->stdout);
    }

    public function testHelpListsTheCommands(): void
    {
        foreach (['--help', '-h', 'help'] as $flag) {
            $run = PhpProcess::run(['bin/nexus', $flag], self::ROOT);

            self::assertSame(0, $run->exitCode, $run->describe());
            self::assertSame('', $run->stderr, $run->describe());
            self::assertMatchesRegularExpression('/^  demo +\S/m', $run->stdout, $run->describe());
            self::assertMatchesRegularExpression('/^  help +\S/m', $run->stdout, $run->describe());
            self::assertMatchesRegularExpression('/^  serve +\S/m', $run->stdout, $run->describe());
            self::assertStringContainsString('Usage:', $run->stdout);
        }
    }

    public function testHelpOfOneCommand(): void
    {
        $run = PhpProcess::run(['bin/nexus', 'help', 'demo'], self::ROOT);

        self::assertSame(0, $run->exitCode, $run->describe());
        self::assertStringContainsString("Usage:\n  nexus demo\n", $run->stdout);
    }

    public function testVersion(): void
    {
        $run = PhpProcess::run(['bin/nexus', '--version'], self::ROOT);

        self::assertSame(0, $run->exitCode, $run->describe());
        self::assertMatchesRegularExpression('/^Nexus \S+ \(PHP ' . preg_quote(\PHP_VERSION, '/') . "\\)\n\$/", $run->stdout);
    }

    public function testAnUnknownCommandIsAUsageErrorOnStderr(): void
    {
        $run = PhpProcess::run(['bin/nexus', 'nope'], self::ROOT);

        self::assertSame(2, $run->exitCode, $run->describe());
        self::assertSame('', $run->stdout, $run->describe());
        self::assertStringStartsWith("nexus: unknown command 'nope'.", $run->stderr);
        self::assertMatchesRegularExpression('/^  demo +\S/m', $run->stderr, 'The usage follows the error.');
    }

    public function testNoCommandIsAUsageError(): void
    {
        $run = PhpProcess::run(['bin/nexus'], self::ROOT);

        self::assertSame(2, $run->exitCode, $run->describe());
        self::assertSame('', $run->stdout, $run->describe());
        self::assertStringStartsWith('nexus: no command given.', $run->stderr);
    }

    public function testDemoRejectsArguments(): void
    {
        $run = PhpProcess::run(['bin/nexus', 'demo', '--fast'], self::ROOT);

        self::assertSame(2, $run->exitCode, $run->describe());
        self::assertSame('', $run->stdout, $run->describe());
        self::assertStringContainsString("nexus demo: takes no arguments, got '--fast'.", $run->stderr);
    }

    public function testTheScriptIsExecutable(): void
    {
        self::assertTrue(is_executable(self::ROOT . '/bin/nexus'), 'bin/nexus must be executable (chmod +x).');
        self::assertStringStartsWith("#!/usr/bin/env php\n", (string) file_get_contents(self::ROOT . '/bin/nexus'));
    }

    public function testFindsTheAutoloaderWhenInstalledAsADependency(): void
    {
        $project = self::temporaryDirectory();
        try {
            mkdir($project . '/vendor/nexus/nexus/bin', 0o777, true);
            copy(self::ROOT . '/bin/nexus', $project . '/vendor/nexus/nexus/bin/nexus');
            file_put_contents(
                $project . '/vendor/autoload.php',
                "<?php\n\nreturn require " . var_export(realpath(self::ROOT . '/vendor/autoload.php'), true) . ";\n",
            );

            $run = PhpProcess::run([$project . '/vendor/nexus/nexus/bin/nexus', '--version'], $project);

            self::assertSame(0, $run->exitCode, $run->describe());
            self::assertStringStartsWith('Nexus ', $run->stdout);
        } finally {
            self::remove($project);
        }
    }

    public function testSaysWhatToDoWithoutAnAutoloader(): void
    {
        $project = self::temporaryDirectory();
        try {
            mkdir($project . '/bin');
            copy(self::ROOT . '/bin/nexus', $project . '/bin/nexus');

            $run = PhpProcess::run([$project . '/bin/nexus', 'demo'], $project);

            self::assertSame(1, $run->exitCode, $run->describe());
            self::assertStringContainsString("vendor/autoload.php not found: run 'composer install'", $run->stderr);
        } finally {
            self::remove($project);
        }
    }

    /**
     * The needles found in $haystack one after another, each after the previous one: equal to
     * $needles exactly when all of them occur in that order.
     *
     * @param list<string> $needles
     *
     * @return list<string>
     */
    private static function inOrder(string $haystack, array $needles): array
    {
        $found = [];
        $offset = 0;
        foreach ($needles as $needle) {
            $at = strpos($haystack, $needle, $offset);
            if ($at === false) {
                break;
            }
            $found[] = $needle;
            $offset = $at + \strlen($needle);
        }

        return $found;
    }

    private static function temporaryDirectory(): string
    {
        $path = sys_get_temp_dir() . '/nexus-cli-test-' . bin2hex(random_bytes(6));
        if (!mkdir($path)) {
            throw new \RuntimeException("Could not create the temporary directory {$path}.");
        }

        return $path;
    }

    private static function remove(string $path): void
    {
        if (is_dir($path) && !is_link($path)) {
            foreach (scandir($path) ?: [] as $entry) {
                if ($entry !== '.' && $entry !== '..') {
                    self::remove($path . '/' . $entry);
                }
            }
            rmdir($path);
        } elseif (file_exists($path) || is_link($path)) {
            unlink($path);
        }
    }
}
