// PTX opcodes (the first dot-free word of an instruction) and the scalar types
// and state spaces that modifiers and declarations name.
#ifndef BARRACUDA_PTX_REWRITER_OPCODES_H_
#define BARRACUDA_PTX_REWRITER_OPCODES_H_

#include <cstdint>
#include <string_view>

namespace barracuda::ptx {

// X(enumerator, spelling). Every instruction of PTX ISA 9.0; multi-part opcodes
// (cp.async.bulk, bar.warp.sync, mbarrier.arrive) are the first word plus
// modifiers.
#define BARRACUDA_PTX_OPCODES(X)                                                     \
  X(Abs, "abs") X(Activemask, "activemask") X(Add, "add") X(Addc, "addc")            \
  X(Alloca, "alloca") X(And, "and") X(Applypriority, "applypriority") X(Atom, "atom") \
  X(Bar, "bar") X(Barrier, "barrier") X(Bfe, "bfe") X(Bfi, "bfi") X(Bfind, "bfind")  \
  X(Bmsk, "bmsk") X(Bra, "bra") X(Brev, "brev") X(Brkpt, "brkpt") X(Brx, "brx")      \
  X(Call, "call") X(Clusterlaunchcontrol, "clusterlaunchcontrol") X(Clz, "clz")      \
  X(Cnot, "cnot") X(Copysign, "copysign") X(Cos, "cos") X(Cp, "cp")                  \
  X(Createpolicy, "createpolicy") X(Cvt, "cvt") X(Cvta, "cvta") X(Discard, "discard") \
  X(Div, "div") X(Dp2a, "dp2a") X(Dp4a, "dp4a") X(Elect, "elect") X(Ex2, "ex2")      \
  X(Exit, "exit") X(Fence, "fence") X(Fma, "fma") X(Fns, "fns")                      \
  X(Getctarank, "getctarank") X(Griddepcontrol, "griddepcontrol")                    \
  X(Isspacep, "isspacep") X(Istypep, "istypep") X(Ld, "ld") X(Ldmatrix, "ldmatrix")  \
  X(Ldu, "ldu") X(Lg2, "lg2") X(Lop3, "lop3") X(Mad, "mad") X(Mad24, "mad24")        \
  X(Madc, "madc") X(Mapa, "mapa") X(Match, "match") X(Max, "max")                    \
  X(Mbarrier, "mbarrier") X(Membar, "membar") X(Min, "min") X(Mma, "mma")            \
  X(Mov, "mov") X(Movmatrix, "movmatrix") X(Mul, "mul") X(Mul24, "mul24")            \
  X(Multimem, "multimem") X(Nanosleep, "nanosleep") X(Neg, "neg") X(Not, "not")      \
  X(Or, "or") X(Pmevent, "pmevent") X(Popc, "popc") X(Prefetch, "prefetch")          \
  X(Prefetchu, "prefetchu") X(Prmt, "prmt") X(Rcp, "rcp") X(Red, "red")              \
  X(Redux, "redux") X(Rem, "rem") X(Ret, "ret") X(Rsqrt, "rsqrt") X(Sad, "sad")      \
  X(Selp, "selp") X(Set, "set") X(Setmaxnreg, "setmaxnreg") X(Setp, "setp")          \
  X(Shf, "shf") X(Shfl, "shfl") X(Shl, "shl") X(Shr, "shr") X(Sin, "sin")            \
  X(Slct, "slct") X(Sqrt, "sqrt") X(St, "st") X(Stackrestore, "stackrestore")        \
  X(Stacksave, "stacksave") X(Stmatrix, "stmatrix") X(Sub, "sub") X(Subc, "subc")    \
  X(Suld, "suld") X(Suq, "suq") X(Sured, "sured") X(Sust, "sust") X(Szext, "szext")  \
  X(Tanh, "tanh") X(Tcgen05, "tcgen05") X(Tensormap, "tensormap") X(Testp, "testp")  \
  X(Tex, "tex") X(Tld4, "tld4") X(Trap, "trap") X(Txq, "txq")                        \
  X(Vabsdiff, "vabsdiff") X(Vabsdiff2, "vabsdiff2") X(Vabsdiff4, "vabsdiff4")        \
  X(Vadd, "vadd") X(Vadd2, "vadd2") X(Vadd4, "vadd4") X(Vavrg2, "vavrg2")            \
  X(Vavrg4, "vavrg4") X(Vmad, "vmad") X(Vmax, "vmax") X(Vmax2, "vmax2")              \
  X(Vmax4, "vmax4") X(Vmin, "vmin") X(Vmin2, "vmin2") X(Vmin4, "vmin4")              \
  X(Vote, "vote") X(Vset, "vset") X(Vset2, "vset2") X(Vset4, "vset4") X(Vshl, "vshl") \
  X(Vshr, "vshr") X(Vsub, "vsub") X(Vsub2, "vsub2") X(Vsub4, "vsub4") X(Wgmma, "wgmma") \
  X(Wmma, "wmma") X(Xor, "xor")

enum class Opcode : uint8_t {
  kUnknown,  // not a PTX 9.0 opcode: spelling kept in Instruction::opcode_text
#define BARRACUDA_PTX_OPCODE_ENUM(e, s) k##e,
  BARRACUDA_PTX_OPCODES(BARRACUDA_PTX_OPCODE_ENUM)
#undef BARRACUDA_PTX_OPCODE_ENUM
};

std::string_view OpcodeName(Opcode op);    // "" for kUnknown
Opcode LookupOpcode(std::string_view name);  // kUnknown if not an opcode

// Fundamental types, as in declarations and type modifiers: X(enumerator, spelling, bytes).
// Sub-byte types report 1 byte; .pred reports 0.
#define BARRACUDA_PTX_TYPES(X)                                                          \
  X(B8, ".b8", 1) X(B16, ".b16", 2) X(B32, ".b32", 4) X(B64, ".b64", 8)                 \
  X(B128, ".b128", 16) X(U8, ".u8", 1) X(U16, ".u16", 2) X(U32, ".u32", 4)              \
  X(U64, ".u64", 8) X(S8, ".s8", 1) X(S16, ".s16", 2) X(S32, ".s32", 4)                 \
  X(S64, ".s64", 8) X(F16, ".f16", 2) X(F16x2, ".f16x2", 4) X(Bf16, ".bf16", 2)         \
  X(Bf16x2, ".bf16x2", 4) X(Tf32, ".tf32", 4) X(F32, ".f32", 4) X(F64, ".f64", 8)       \
  X(Pred, ".pred", 0) X(E4m3, ".e4m3", 1) X(E5m2, ".e5m2", 1) X(E4m3x2, ".e4m3x2", 2)   \
  X(E5m2x2, ".e5m2x2", 2) X(E2m1, ".e2m1", 1) X(E2m3, ".e2m3", 1) X(E3m2, ".e3m2", 1)   \
  X(Ue8m0, ".ue8m0", 1) X(E2m1x2, ".e2m1x2", 1) X(E2m3x2, ".e2m3x2", 2)                 \
  X(E3m2x2, ".e3m2x2", 2) X(Ue8m0x2, ".ue8m0x2", 2) X(S4, ".s4", 1) X(U4, ".u4", 1)     \
  X(B1, ".b1", 1) X(S2, ".s2", 1) X(U2, ".u2", 1) X(Texref, ".texref", 8)               \
  X(Samplerref, ".samplerref", 8) X(Surfref, ".surfref", 8)

enum class Type : uint8_t {
  kNone,
#define BARRACUDA_PTX_TYPE_ENUM(e, s, b) k##e,
  BARRACUDA_PTX_TYPES(BARRACUDA_PTX_TYPE_ENUM)
#undef BARRACUDA_PTX_TYPE_ENUM
};

std::string_view TypeName(Type t);         // ".u32"; "" for kNone
Type LookupType(std::string_view dotted);  // ".u32" -> kU32; kNone if not a type
uint32_t TypeSize(Type t);                 // bytes
bool IsSignedInt(Type t);
bool IsUnsignedInt(Type t);
bool IsBitType(Type t);
bool IsFloat(Type t);  // f16/bf16/tf32/f32/f64 and packed x2 forms, fp8/fp6/fp4 forms

// State spaces. kSharedCluster is `.shared::cluster`; `.shared` and `.shared::cta`
// are kShared (the printer keeps the spelling, from the modifier text).
enum class StateSpace : uint8_t {
  kNone,     // no space given (generic addressing for ld/st/atom)
  kReg,
  kSreg,
  kConst,
  kGlobal,
  kLocal,
  kParam,        // .param, .param::entry, .param::func
  kShared,       // .shared, .shared::cta
  kSharedCluster,
  kTex,
  kGeneric,      // no space on an address-taking instruction, made explicit by consumers
};

std::string_view StateSpaceName(StateSpace s);  // ".global"; "" for kNone / kGeneric
// ".global" -> kGlobal, ".shared::cta" -> kShared, ".param::entry" -> kParam; kNone otherwise.
StateSpace LookupStateSpace(std::string_view dotted);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_OPCODES_H_
