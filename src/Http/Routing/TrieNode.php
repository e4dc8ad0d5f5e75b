<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

/** A node of the per-method segment trie. Built at boot, only read while matching. */
final class TrieNode
{
    /** @var array<string, TrieNode> by decoded literal segment */
    public array $literals = [];
    /** @var array<string, TrieNode> by anchored constraint regex, tried in declaration order */
    public array $constrained = [];
    /** @var array<string, TrieNode> by the regex of a segment of text and parameters, in declaration order */
    public array $mixed = [];
    /** The child for an unconstrained `{name}`: any non-empty segment, no regex. */
    public ?TrieNode $param = null;
    /** @var array<string, RouteLeaf> rest parameters by constraint (".+" or ".*") */
    public array $rest = [];
    public ?RouteLeaf $leaf = null;
}
