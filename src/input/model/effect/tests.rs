//! Each cue and each way they combine, on operations written as descriptions write them.
