"""One pipeline per verb: act, observe, extract, judge, waiting, vision, replay."""
