<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * A buffered response body grew past its cap (RequestOptions/ClientOptions maxBodySize), or a
 * decoded (gunzipped) body past maxDecodedSize: a decompression bomb is cut off here. The
 * connection was closed. Stream the body (RequestOptions stream: true) to handle it piece by
 * piece, or raise the cap.
 */
final class BodyTooLargeException extends \RuntimeException implements HttpClientException {}
