<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

/**
 * The codec a pool uses: igbinary when the extension is loaded, else serialize().
 */
final class Codecs
{
    public static function best(MessageClasses $classes): MessageCodec
    {
        return \function_exists('igbinary_serialize') ? new IgbinaryCodec($classes) : new NativeCodec($classes);
    }
}
