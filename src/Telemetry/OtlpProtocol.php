<?php

declare(strict_types=1);

namespace Nexus\Telemetry;

/**
 * The OTLP encodings the exporter sends over HTTP (OTEL_EXPORTER_OTLP_PROTOCOL). gRPC is not
 * offered: it needs HTTP/2, which the Nexus HTTP client does not speak.
 */
enum OtlpProtocol: string
{
    case HttpProtobuf = 'http/protobuf';
    case HttpJson = 'http/json';

    /**
     * @return 'application/x-protobuf'|'application/json'
     */
    public function contentType(): string
    {
        return $this === self::HttpProtobuf ? 'application/x-protobuf' : 'application/json';
    }
}
