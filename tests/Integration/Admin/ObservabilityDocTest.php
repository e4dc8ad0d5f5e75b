<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Admin;

use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * The metrics sample of docs/observability.md runs as written and prints the lines the page shows
 * after it (in order; "..." stands for lines left out).
 */
final class ObservabilityDocTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    public function testTheMetricsSamplePrintsWhatThePageShows(): void
    {
        $doc = (string) file_get_contents(self::ROOT . '/docs/observability.md');
        if (preg_match('/^```php\n(?<code>.*?)^```\n.*?^```text\n(?<output>.*?)^```$/ms', $doc, $match) !== 1) {
            self::fail('docs/observability.md has no php sample followed by its output.');
        }
        $script = tempnam(sys_get_temp_dir(), 'nexus-doc-');
        self::assertIsString($script);
        try {
            file_put_contents($script, $match['code']);
            $run = PhpProcess::run([$script], self::ROOT);
        } finally {
            unlink($script);
        }

        self::assertSame(0, $run->exitCode, $run->describe());
        $offset = 0;
        foreach (explode("\n", rtrim($match['output'])) as $line) {
            if ($line === '...') {
                continue;
            }
            $found = strpos($run->stdout, $line . "\n", $offset);
            self::assertNotFalse($found, "the sample did not print, in order: {$line}\n--- it printed ---\n{$run->stdout}");
            $offset = $found + \strlen($line);
        }
    }
}
