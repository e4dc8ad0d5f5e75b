<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

/**
 * An error meant for the client: the ErrorHandler answers it with its status and detail (shown in
 * production too, so write it for the client). Not final so that applications can derive their
 * own typed errors (e.g. `final class OrderNotFound extends HttpException`).
 */
class HttpException extends \RuntimeException
{
    /**
     * @param array<string, string> $headers added to the error response (e.g. Allow, Retry-After)
     * @param array<string, mixed> $extensions extra members of the problem details object
     */
    public function __construct(
        public readonly int $status,
        string $detail = '',
        public readonly array $headers = [],
        public readonly array $extensions = [],
        ?\Throwable $previous = null,
    ) {
        if ($status < 400 || $status > 599) {
            throw new \InvalidArgumentException(\sprintf('An HttpException status must be a 4xx or 5xx code, got %d.', $status));
        }
        parent::__construct($detail, 0, $previous);
    }

    public static function badRequest(string $detail): self
    {
        return new self(400, $detail);
    }

    public static function notFound(string $detail): self
    {
        return new self(404, $detail);
    }

    /** @param list<string> $errors one line per problem, also sent as the "errors" member */
    public static function unprocessable(string $detail, array $errors = []): self
    {
        return new self(422, $detail, [], $errors === [] ? [] : ['errors' => $errors]);
    }
}
