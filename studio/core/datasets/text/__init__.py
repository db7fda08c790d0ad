"""Text for next-word models: reading short lines, a word tokenizer with a vocabulary cap, and the
growing-prefix (n-gram) sequences a language model trains on. Pure Python and numpy (no torch)."""
