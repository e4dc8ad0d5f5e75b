<?php

declare(strict_types=1);

namespace Nexus\Http\Parser;

/**
 * Where the chunked body decoder stands between two feeds.
 *
 * @internal
 */
enum ChunkState
{
    case Size;
    case Data;
    case DataEnd;
    case Trailer;
}
