<?php

declare(strict_types=1);

namespace Nexus\Telemetry;

use OpenTelemetry\SDK\Common\Export\TransportInterface;
use OpenTelemetry\SDK\Common\Future\CancellationInterface;
use OpenTelemetry\SDK\Common\Future\FutureInterface;

/**
 * Passes exports to the SDK's transport and keeps the last failure, which the SDK's exporter
 * turns into a bare false: LoopSpanProcessor logs it with its counts.
 *
 * @implements TransportInterface<'application/json'|'application/x-protobuf'>
 *
 * @internal
 */
final class RecordingTransport implements TransportInterface
{
    public ?\Throwable $lastError = null;

    /**
     * @param TransportInterface<'application/json'|'application/x-protobuf'> $transport
     */
    public function __construct(private readonly TransportInterface $transport) {}

    public function contentType(): string
    {
        return $this->transport->contentType();
    }

    /**
     * @return FutureInterface<string|null>
     */
    public function send(string $payload, ?CancellationInterface $cancellation = null): FutureInterface
    {
        $this->lastError = null;

        return $this->transport->send($payload, $cancellation)->catch(function (\Throwable $e): never {
            $this->lastError = $e;

            throw $e;
        });
    }

    public function shutdown(?CancellationInterface $cancellation = null): bool
    {
        return $this->transport->shutdown($cancellation);
    }

    public function forceFlush(?CancellationInterface $cancellation = null): bool
    {
        return $this->transport->forceFlush($cancellation);
    }
}
