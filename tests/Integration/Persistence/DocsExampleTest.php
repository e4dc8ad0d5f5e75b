<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * Runs the example of docs/persistence.md and checks it prints exactly what the document says
 * (the ```text block after the code), so that neither drifts from the code.
 */
final class DocsExampleTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    public function testTheExamplePrintsWhatTheDocumentShows(): void
    {
        $document = file_get_contents(self::ROOT . '/docs/persistence.md');
        self::assertIsString($document);
        $section = substr($document, (int) strpos($document, '## An example'));
        $pattern = '/^```php[ \t]*\n(?<code>.*?)^```[ \t]*$\n(?<between>.*?)^```text[ \t]*\n(?<output>.*?)^```[ \t]*$/ms';
        if (preg_match($pattern, $section, $blocks) !== 1) {
            self::fail('docs/persistence.md needs an "An example" section with a ```php block followed by a ```text block.');
        }
        self::assertStringNotContainsString('```', $blocks['between']);
        $script = tempnam(sys_get_temp_dir(), 'nexus-persistence-example-');
        self::assertIsString($script);
        try {
            file_put_contents($script, $blocks['code']);
            $run = PhpProcess::run([$script], self::ROOT);
        } finally {
            unlink($script);
        }

        self::assertSame(0, $run->exitCode, $run->describe());
        self::assertSame('', $run->stderr, $run->describe());
        self::assertSame($blocks['output'], $run->stdout);
    }
}
