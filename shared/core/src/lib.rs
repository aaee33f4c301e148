//! Pure core of payability-verdict: the criteria document, the target-URL policy, challenge
//! decoding, the `check` and `memo` rules, report assembly and signatures. No I/O, no
//! clock, no environment: time and keys come in as parameters.

pub mod capture;
pub mod challenge;
pub mod criteria;
pub mod doctor;
pub mod expect;
pub mod grade;
pub mod keys;
pub mod layout;
pub mod op;
pub mod payment;
pub mod policy;
pub mod precheck;
pub mod price;
pub mod report;
pub mod signing;
