"""The one parser of lists of whole numbers a person types."""

import pytest

from studio.core.numbers.ints import split_ints


def test_a_stray_letter_in_a_list_of_numbers_is_an_error_not_dropped():
    assert split_ints("16, 64,256") == [16, 64, 256] and split_ints("28x28") == split_ints("28 × 28") == [28, 28]
    assert split_ints("[1, 2]") == [1, 2]
    with pytest.raises(ValueError):
        split_ints("64,x")
