<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration;

use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * Runs the quick start of README.md and checks it prints exactly what the README says it prints
 * (the ```text block right after the code), so that neither can drift from the code.
 */
final class ReadmeQuickStartTest extends TestCase
{
    private const ROOT = __DIR__ . '/../..';

    public function testTheQuickStartPrintsWhatTheReadmeShows(): void
    {
        [$code, $expected] = self::quickStart();
        $script = tempnam(sys_get_temp_dir(), 'nexus-quickstart-');
        self::assertIsString($script, 'Could not create a temporary file for the quick start.');
        try {
            file_put_contents($script, $code);

            // From the repository root, as the README says, so that require 'vendor/autoload.php' works.
            $run = PhpProcess::run([$script], self::ROOT);
        } finally {
            unlink($script);
        }

        self::assertSame(0, $run->exitCode, $run->describe());
        self::assertSame('', $run->stderr, $run->describe());
        self::assertSame($expected, $run->stdout, 'The quick start printed something else than the ```text block after it in README.md.');
    }

    public function testTheExampleIsTheQuickStart(): void
    {
        [, $expected] = self::quickStart();

        $run = PhpProcess::run(['examples/quickstart.php'], self::ROOT);

        self::assertSame(0, $run->exitCode, $run->describe());
        self::assertSame('', $run->stderr, $run->describe());
        self::assertSame($expected, $run->stdout, 'examples/quickstart.php printed something else than the README quick start.');
    }

    /**
     * @return array{string, string} the first php block under the "Quick start" heading and the
     *                               text block that follows it
     */
    private static function quickStart(): array
    {
        $readme = file_get_contents(self::ROOT . '/README.md');
        self::assertIsString($readme, 'README.md cannot be read.');
        if (preg_match('/^#{1,6}[ \t]+Quick start[ \t]*$/mi', $readme, $heading, \PREG_OFFSET_CAPTURE) !== 1) {
            self::fail('README.md has no "Quick start" heading.');
        }
        $section = substr($readme, $heading[0][1]);
        $pattern = '/^```php[ \t]*\n(?<code>.*?)^```[ \t]*$\n(?<between>.*?)^```text[ \t]*\n(?<output>.*?)^```[ \t]*$/ms';
        if (preg_match($pattern, $section, $blocks) !== 1) {
            self::fail('The "Quick start" section of README.md needs a ```php block followed by a ```text block with its exact output.');
        }
        self::assertStringNotContainsString('```', $blocks['between'], 'The ```text block with the output must be the next block after the ```php block.');
        self::assertStringNotContainsString("\n#", "\n" . $blocks['between'], 'The ```text block with the output must be in the same section as the code.');

        return [$blocks['code'], $blocks['output']];
    }
}
