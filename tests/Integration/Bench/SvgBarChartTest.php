<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Bench\ChartRow;
use Nexus\Bench\SvgBarChart;
use PHPUnit\Framework\TestCase;

final class SvgBarChartTest extends TestCase
{
    private const SVG = 'http://www.w3.org/2000/svg';

    public function testItIsAStandaloneSvgDocumentWithAViewBox(): void
    {
        $svg = $this->load($this->chart()->render([$this->row('actor.tell', [10.0, 5.0])]));
        $root = $svg->documentElement;

        self::assertNotNull($root);
        self::assertSame('svg', $root->localName);
        self::assertSame(self::SVG, $root->namespaceURI);
        self::assertSame('1.1', $root->getAttribute('version'));
        self::assertMatchesRegularExpression('/^0 0 \d+ \d+$/', $root->getAttribute('viewBox'));
        self::assertSame(1, $svg->getElementsByTagNameNS(self::SVG, 'title')->length);
    }

    public function testItDrawsOneBarPerValue(): void
    {
        $rows = [
            $this->row('a', [3.0, 1.0]),
            $this->row('b', [2.0, 2.5]),
            $this->row('c', [7.0, null]),
        ];

        $svg = $this->load($this->chart()->render($rows));

        self::assertSame(5, $this->elementsWithClass($svg, 'bar'));
        self::assertSame(3, $this->elementsWithClass($svg, 'series-0'));
        self::assertSame(2, $this->elementsWithClass($svg, 'series-1'));
        self::assertStringContainsString('n/a', (string) $svg->saveXML());
    }

    public function testEachBarHasItsValueLabelAndTheLongestFillsTheRow(): void
    {
        $svg = $this->load($this->chart()->render([$this->row('a', [4.0, 2.0])]));

        $texts = [];
        foreach ($svg->getElementsByTagNameNS(self::SVG, 'text') as $text) {
            $texts[] = $text->textContent;
        }
        self::assertContains('4 msgs/s', $texts);
        self::assertContains('2 msgs/s', $texts);
        $widths = [];
        foreach ($svg->getElementsByTagNameNS(self::SVG, 'rect') as $rect) {
            if (str_contains($rect->getAttribute('class'), 'bar')) {
                $widths[] = (float) $rect->getAttribute('width');
            }
        }
        self::assertCount(2, $widths);
        self::assertEqualsWithDelta(2.0, $widths[0] / $widths[1], 0.01);
    }

    public function testAMarkerIsDrawnPerRowThatHasOne(): void
    {
        $rows = [
            new ChartRow('a', 'msgs/s', [1.0, 2.0], ['1', '2'], 3.0, '0.5x', 'target: missed', false),
            new ChartRow('b', 'msgs/s', [1.0, 2.0], ['1', '2']),
        ];

        $svg = $this->load($this->chart()->render($rows));

        self::assertSame(1, $this->elementsWithClass($svg, 'marker', 'line'));
        self::assertStringContainsString('target: missed', (string) $svg->saveXML());
    }

    public function testTextIsEscaped(): void
    {
        $rows = [new ChartRow('<script>&', 'a "quoted" unit', [1.0], ['1 <b>'], null, 'x & y')];

        $xml = $this->chart()->render($rows);
        $svg = $this->load($xml);

        self::assertStringNotContainsString('<script>', $xml);
        self::assertSame(0, $svg->getElementsByTagName('script')->length);
        self::assertStringContainsString('&lt;script&gt;&amp;', $xml);
    }

    public function testItReferencesNoExternalAsset(): void
    {
        $xml = $this->chart()->render([$this->row('a', [1.0, 2.0])]);

        self::assertDoesNotMatchRegularExpression('/href|url\(|@import|<image/i', $xml);
    }

    public function testRowsMustHaveALabelPerValue(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new ChartRow('a', '', [1.0, 2.0], ['1']);
    }

    public function testNegativeValuesAreRejected(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new ChartRow('a', '', [-1.0], ['-1']);
    }

    private function chart(): SvgBarChart
    {
        return new SvgBarChart('Benchmarks', ['tracing JIT', 'no JIT'], 'ratio', 'caption');
    }

    /**
     * @param list<float|null> $values
     */
    private function row(string $label, array $values): ChartRow
    {
        return new ChartRow(
            $label,
            'msgs/s, higher is better',
            $values,
            array_map(static fn(?float $value): string => $value === null ? '' : "{$value} msgs/s", $values),
        );
    }

    private function load(string $xml): \DOMDocument
    {
        $document = new \DOMDocument();
        $previous = libxml_use_internal_errors(true);
        try {
            $loaded = $document->loadXML($xml);
            $errors = array_map(static fn(\LibXMLError $error): string => trim($error->message), libxml_get_errors());
            libxml_clear_errors();
        } finally {
            libxml_use_internal_errors($previous);
        }
        self::assertTrue($loaded, 'Not well-formed XML: ' . implode('; ', $errors));
        self::assertSame([], $errors);

        return $document;
    }

    private function elementsWithClass(\DOMDocument $svg, string $class, string $element = 'rect'): int
    {
        $count = 0;
        foreach ($svg->getElementsByTagNameNS(self::SVG, $element) as $node) {
            if (\in_array($class, explode(' ', $node->getAttribute('class')), true)) {
                ++$count;
            }
        }

        return $count;
    }
}
